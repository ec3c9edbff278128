SELECT f.id, f.state FROM [messaging].[shop_inbox] AS f WHERE f.source = @0 AND f.idempotency_key = @1;
