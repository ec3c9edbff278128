CREATE INDEX [shop_outbox_keyed_pending_ix] ON [messaging].[shop_outbox] (id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL
