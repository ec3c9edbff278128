DROP INDEX [shop_outbox_retried_ix] ON [messaging].[shop_outbox]
