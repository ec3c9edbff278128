CREATE INDEX [queuebox_inbox_messages_key_pending_ix] ON [queuebox_inbox_messages] (source, ordering_key, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL
