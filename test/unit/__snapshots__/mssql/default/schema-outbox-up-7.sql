CREATE INDEX [queuebox_outbox_messages_key_finished_ix] ON [queuebox_outbox_messages] (destination, ordering_key, id) INCLUDE (state) WHERE state IN ('sent', 'dead') AND ordering_key IS NOT NULL
