CREATE INDEX [queuebox_outbox_messages_dead_ix] ON [queuebox_outbox_messages] (id) INCLUDE (state, finished_at) WHERE state = 'dead'
