CREATE INDEX [queuebox_inbox_messages_processing_ix] ON [queuebox_inbox_messages] (source, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'
