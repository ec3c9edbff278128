CREATE INDEX [shop_outbox_unkeyed_pending_ix] ON [messaging].[shop_outbox] (destination, id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL
