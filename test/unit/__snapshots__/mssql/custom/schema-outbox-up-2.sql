CREATE TABLE [messaging].[shop_outbox] (
  id               bigint IDENTITY(1, 1) NOT NULL,
  message_id       uniqueidentifier NOT NULL,
  ordering_key     nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL,
  destination      nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
  headers          nvarchar(max)    NOT NULL CONSTRAINT [shop_outbox_headers_df] DEFAULT N'{}',
  payload          nvarchar(max)    NOT NULL,
  state            varchar(16)      NOT NULL CONSTRAINT [shop_outbox_state_df] DEFAULT 'pending',
  claim_token      uniqueidentifier NULL,
  claimed_at       datetime2(3)     NULL,
  lease_expires_at datetime2(3)     NULL,
  attempts         int              NOT NULL CONSTRAINT [shop_outbox_attempts_df] DEFAULT 0,
  next_attempt_at  datetime2(3)     NOT NULL CONSTRAINT [shop_outbox_next_attempt_at_df] DEFAULT SYSUTCDATETIME(),
  created_at       datetime2(3)     NOT NULL CONSTRAINT [shop_outbox_created_at_df] DEFAULT SYSUTCDATETIME(),
  finished_at      datetime2(3)     NULL,
  last_error       nvarchar(max)    NULL,
  CONSTRAINT [shop_outbox_pk] PRIMARY KEY CLUSTERED (id),
  CONSTRAINT [shop_outbox_headers_ck] CHECK (ISJSON(headers) = 1),
  CONSTRAINT [shop_outbox_state_ck] CHECK (state IN ('pending', 'processing', 'sent', 'dead')),
  CONSTRAINT [shop_outbox_claim_ck] CHECK (state <> 'processing'
    OR (claim_token IS NOT NULL AND lease_expires_at IS NOT NULL AND claimed_at IS NOT NULL))
)
