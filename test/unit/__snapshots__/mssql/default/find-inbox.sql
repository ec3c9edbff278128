SELECT f.id, f.state FROM [queuebox_inbox_messages] AS f WHERE f.source = @0 AND f.idempotency_key = @1;
