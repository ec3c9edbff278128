DROP TABLE [messaging].[shop_outbox]
