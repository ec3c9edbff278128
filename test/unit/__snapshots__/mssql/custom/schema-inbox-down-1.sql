DROP TABLE [messaging].[shop_inbox]
