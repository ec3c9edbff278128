CREATE INDEX [queuebox_inbox_messages_key_finished_ix] ON [queuebox_inbox_messages] (source, ordering_key, id) INCLUDE (state) WHERE state IN ('processed', 'dead') AND ordering_key IS NOT NULL
