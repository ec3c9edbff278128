CREATE INDEX [queuebox_inbox_messages_retried_ix] ON [queuebox_inbox_messages] (source, next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0
