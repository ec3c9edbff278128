CREATE INDEX [shop_inbox_keyed_pending_ix] ON [messaging].[shop_inbox] (source, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL
