DROP INDEX [shop_outbox_keyed_pending_ix] ON [messaging].[shop_outbox]
