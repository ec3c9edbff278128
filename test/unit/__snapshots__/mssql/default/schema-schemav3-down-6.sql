CREATE INDEX [queuebox_outbox_messages_retried_ix] ON [queuebox_outbox_messages] (next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0
