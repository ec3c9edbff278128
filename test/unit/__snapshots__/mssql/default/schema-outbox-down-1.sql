DROP TABLE [queuebox_outbox_messages]
