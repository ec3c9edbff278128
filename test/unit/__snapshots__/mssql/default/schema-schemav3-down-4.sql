CREATE INDEX [queuebox_outbox_messages_keyed_pending_ix] ON [queuebox_outbox_messages] (id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL
