DROP INDEX [shop_outbox_unkeyed_pending_ix] ON [messaging].[shop_outbox]
