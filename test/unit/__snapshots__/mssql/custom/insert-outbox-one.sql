INSERT INTO [messaging].[shop_outbox] (message_id, destination, ordering_key, headers, payload)
OUTPUT inserted.id, LOWER(CONVERT(char(36), inserted.message_id)) AS message_id
VALUES (@0, @1, @2, @3, @4);
