CREATE INDEX [shop_inbox_dead_ix] ON [messaging].[shop_inbox] (id) INCLUDE (state, finished_at) WHERE state = 'dead'
