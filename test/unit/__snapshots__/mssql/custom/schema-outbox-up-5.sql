CREATE INDEX [shop_outbox_key_pending_ix] ON [messaging].[shop_outbox] (destination, ordering_key, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL
