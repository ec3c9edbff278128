CREATE INDEX [queuebox_outbox_messages_processing_ix] ON [queuebox_outbox_messages] (destination, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'
