DROP TABLE [queuebox_inbox_messages]
