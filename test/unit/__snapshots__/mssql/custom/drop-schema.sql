DROP TABLE IF EXISTS [messaging].[shop_inbox];
DROP TABLE IF EXISTS [messaging].[shop_outbox];
DROP SCHEMA IF EXISTS [messaging];
