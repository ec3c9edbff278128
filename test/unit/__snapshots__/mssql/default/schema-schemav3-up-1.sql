DROP INDEX [queuebox_outbox_messages_keyed_pending_ix] ON [queuebox_outbox_messages]
