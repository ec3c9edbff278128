DROP INDEX [queuebox_outbox_messages_retried_ix] ON [queuebox_outbox_messages]
