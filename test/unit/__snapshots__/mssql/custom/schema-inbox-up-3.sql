CREATE INDEX [shop_inbox_unkeyed_pending_ix] ON [messaging].[shop_inbox] (source, id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL
