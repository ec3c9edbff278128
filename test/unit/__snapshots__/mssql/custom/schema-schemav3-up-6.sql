CREATE INDEX [shop_outbox_retried_ix] ON [messaging].[shop_outbox] (destination, next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0
