CREATE INDEX [queuebox_inbox_messages_unkeyed_pending_ix] ON [queuebox_inbox_messages] (source, id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL
