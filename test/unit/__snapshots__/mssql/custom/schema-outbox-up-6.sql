CREATE INDEX [shop_outbox_processing_ix] ON [messaging].[shop_outbox] (destination, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'
