CREATE INDEX [shop_outbox_dead_ix] ON [messaging].[shop_outbox] (id) INCLUDE (state, finished_at) WHERE state = 'dead'
