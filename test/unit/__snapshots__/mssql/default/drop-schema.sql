DROP TABLE IF EXISTS [queuebox_conformance_run].[queuebox_inbox_messages];
DROP TABLE IF EXISTS [queuebox_conformance_run].[queuebox_outbox_messages];
DROP SCHEMA IF EXISTS [queuebox_conformance_run];
