CREATE INDEX [shop_inbox_retried_ix] ON [messaging].[shop_inbox] (source, next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0
