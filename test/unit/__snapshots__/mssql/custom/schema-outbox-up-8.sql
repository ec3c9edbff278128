CREATE INDEX [shop_outbox_key_finished_ix] ON [messaging].[shop_outbox] (destination, ordering_key, id) INCLUDE (state) WHERE state IN ('sent', 'dead') AND ordering_key IS NOT NULL
