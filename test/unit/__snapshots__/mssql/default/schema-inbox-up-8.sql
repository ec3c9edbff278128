CREATE INDEX [queuebox_inbox_messages_dead_ix] ON [queuebox_inbox_messages] (id) INCLUDE (state, finished_at) WHERE state = 'dead'
