CREATE INDEX [queuebox_outbox_messages_unkeyed_pending_ix] ON [queuebox_outbox_messages] (id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL
