CREATE INDEX [shop_inbox_processing_ix] ON [messaging].[shop_inbox] (source, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'
