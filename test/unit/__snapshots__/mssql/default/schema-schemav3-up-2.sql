DROP INDEX [queuebox_outbox_messages_unkeyed_pending_ix] ON [queuebox_outbox_messages]
