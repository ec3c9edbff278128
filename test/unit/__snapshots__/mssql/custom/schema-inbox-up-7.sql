CREATE INDEX [shop_inbox_key_finished_ix] ON [messaging].[shop_inbox] (source, ordering_key, id) INCLUDE (state) WHERE state IN ('processed', 'dead') AND ordering_key IS NOT NULL
