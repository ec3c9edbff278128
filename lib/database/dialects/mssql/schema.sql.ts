import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { KEY_TYPE, qualified, quote } from './mssql-names.js';

/*
 * DDL run by the TypeORM migration classes only. SQL Server starts at PostgreSQL's schema version 2,
 * with filtered indexes.
 *
 * NOTE: filtered indexes match literal predicates only (states are always literals; forced
 * parameterization would defeat them). Writes need ANSI_NULLS, ANSI_PADDING, ANSI_WARNINGS,
 * ARITHABORT, CONCAT_NULL_YIELDS_NULL, QUOTED_IDENTIFIER ON and NUMERIC_ROUNDABORT OFF (error 1934):
 * tedious' defaults with TypeORM's `enableArithAbort`.
 */

const claimColumns = (
  table: string,
): string => `  state            varchar(16)      NOT NULL CONSTRAINT ${quote(`${table}_state_df`)} DEFAULT 'pending',
  claim_token      uniqueidentifier NULL,
  claimed_at       datetime2(3)     NULL,
  lease_expires_at datetime2(3)     NULL,
  attempts         int              NOT NULL CONSTRAINT ${quote(`${table}_attempts_df`)} DEFAULT 0,
  next_attempt_at  datetime2(3)     NOT NULL CONSTRAINT ${quote(`${table}_next_attempt_at_df`)} DEFAULT SYSUTCDATETIME(),`;

const constraints = (
  table: string,
  done: 'sent' | 'processed',
): string => `  CONSTRAINT ${quote(`${table}_pk`)} PRIMARY KEY CLUSTERED (id),
  CONSTRAINT ${quote(`${table}_headers_ck`)} CHECK (ISJSON(headers) = 1),
  CONSTRAINT ${quote(`${table}_state_ck`)} CHECK (state IN ('pending', 'processing', '${done}', 'dead')),
  CONSTRAINT ${quote(`${table}_claim_ck`)} CHECK (state <> 'processing'
    OR (claim_token IS NOT NULL AND lease_expires_at IS NOT NULL AND claimed_at IS NOT NULL))`;

/**
 * The indexes of schema version 2 (PostgreSQL's `V2_INDEXES`). `INCLUDE` carries what a statement
 * reads so it never looks the row up, and `state`: the optimizer skips a filtered index whose filter
 * column it cannot see when the predicate is not exactly the filter.
 */
const V2_INDEXES: Record<QueueBoxTable, readonly (readonly [string, string])[]> = {
  outbox: [
    // Claim, window: the oldest keyed pending rows; the due probe.
    ['keyed_pending_ix', `(id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL`],
    // Claim: the oldest unordered pending rows that are due; the due probe. (An IS NULL filter
    // needs its column in the index, or every row is looked up.)
    [
      'unkeyed_pending_ix',
      `(id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL`,
    ],
    // Claim: the walk over keys (one seek per key), the head of a key, anti-join (A); the hand-off.
    [
      'key_pending_ix',
      `(destination, ordering_key, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    ],
    // Claim anti-join (B); the reclaim of expired leases.
    ['processing_ix', `(destination, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'`],
    // Claim: retried and reclaimed rows once due, wherever they are in the queue.
    ['retried_ix', `(next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0`],
    // Order inversions: a claim of a row older than a finished row of its key.
    [
      'key_finished_ix',
      `(destination, ordering_key, id) INCLUDE (state) WHERE state IN ('sent', 'dead') AND ordering_key IS NOT NULL`,
    ],
    // Dead-letter listing, and retention of dead rows.
    ['dead_ix', `(id) INCLUDE (state, finished_at) WHERE state = 'dead'`],
  ],
  inbox: [
    [
      'keyed_pending_ix',
      `(source, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    ],
    [
      'unkeyed_pending_ix',
      `(source, id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL`,
    ],
    [
      'key_pending_ix',
      `(source, ordering_key, id) INCLUDE (state, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    ],
    // Also the pull claim's expired leases of a source.
    ['processing_ix', `(source, ordering_key, lease_expires_at) INCLUDE (state) WHERE state = 'processing'`],
    ['retried_ix', `(source, next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0`],
    [
      'key_finished_ix',
      `(source, ordering_key, id) INCLUDE (state) WHERE state IN ('processed', 'dead') AND ordering_key IS NOT NULL`,
    ],
    ['dead_ix', `(id) INCLUDE (state, finished_at) WHERE state = 'dead'`],
  ],
};

const createIndexes = (
  t: ResolvedTableNames,
  table: QueueBoxTable,
  indexes: readonly (readonly [string, string])[] = V2_INDEXES[table],
): string[] =>
  indexes.map(
    ([suffix, definition]) =>
      /* sql */ `CREATE INDEX ${quote(`${t[table]}_${suffix}`)} ON ${qualified(t, table)} ${definition}`,
  );

const dropIndexes = (
  t: ResolvedTableNames,
  table: QueueBoxTable,
  indexes: readonly (readonly [string, string])[],
): string[] =>
  indexes.map(([suffix]) => /* sql */ `DROP INDEX ${quote(`${t[table]}_${suffix}`)} ON ${qualified(t, table)}`);

/** The outbox indexes of schema version 3 (PostgreSQL's `V3_INDEXES`), leading with `destination`. */
const V3_INDEXES = {
  before: V2_INDEXES.outbox.filter(([suffix]) =>
    ['keyed_pending_ix', 'unkeyed_pending_ix', 'retried_ix'].includes(suffix),
  ),
  after: [
    // Claim, window: the oldest keyed pending rows, and their destination; the due probe.
    [
      'keyed_pending_ix',
      `(id) INCLUDE (state, next_attempt_at, destination) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    ],
    // Claim: the oldest unordered pending rows of each destination that are due; the due probe.
    [
      'unkeyed_pending_ix',
      `(destination, id) INCLUDE (state, ordering_key, next_attempt_at) WHERE state = 'pending' AND ordering_key IS NULL`,
    ],
    // Claim: the retried and reclaimed rows of each destination once due.
    ['retried_ix', `(destination, next_attempt_at) INCLUDE (state, attempts) WHERE state = 'pending' AND attempts > 0`],
  ],
} as const;

export const upgradeToV3 = (t: ResolvedTableNames): string[] => [
  ...dropIndexes(t, 'outbox', V3_INDEXES.before),
  ...createIndexes(t, 'outbox', V3_INDEXES.after),
];

export const downgradeFromV3 = (t: ResolvedTableNames): string[] => [
  ...dropIndexes(t, 'outbox', V3_INDEXES.after),
  ...createIndexes(t, 'outbox', V3_INDEXES.before),
];

/** `CREATE SCHEMA` must be alone in its batch, hence the dynamic SQL (a validated identifier). */
export const createSchema = (t: ResolvedTableNames): string[] =>
  t.schema
    ? [/* sql */ `IF SCHEMA_ID(N'${t.schema}') IS NULL EXEC sys.sp_executesql N'CREATE SCHEMA ${quote(t.schema)}'`]
    : [];

/**
 * The outbox. Key columns are binary-collated `nvarchar(200)` (case-sensitive keys; `nvarchar` matches
 * tedious' string parameters, so a seek needs no conversion). No unique index on `message_id`.
 */
export const createOutboxTable = (t: ResolvedTableNames): string[] => [
  /* sql */ `CREATE TABLE ${qualified(t, 'outbox')} (
  id               bigint IDENTITY(1, 1) NOT NULL,
  message_id       uniqueidentifier NOT NULL,
  ordering_key     ${KEY_TYPE} NULL,
  destination      ${KEY_TYPE} NOT NULL,
  headers          nvarchar(max)    NOT NULL CONSTRAINT ${quote(`${t.outbox}_headers_df`)} DEFAULT N'{}',
  payload          nvarchar(max)    NOT NULL,
${claimColumns(t.outbox)}
  created_at       datetime2(3)     NOT NULL CONSTRAINT ${quote(`${t.outbox}_created_at_df`)} DEFAULT SYSUTCDATETIME(),
  finished_at      datetime2(3)     NULL,
  last_error       nvarchar(max)    NULL,
${constraints(t.outbox, 'sent')}
)`,
  ...createIndexes(t, 'outbox'),
];

/** The inbox. `(source, idempotency_key)` is unique: the receive's dedupe waits on it (inbox.sql.ts). */
export const createInboxTable = (t: ResolvedTableNames): string[] => [
  /* sql */ `CREATE TABLE ${qualified(t, 'inbox')} (
  id               bigint IDENTITY(1, 1) NOT NULL,
  source           ${KEY_TYPE} NOT NULL,
  idempotency_key  ${KEY_TYPE} NOT NULL,
  ordering_key     ${KEY_TYPE} NULL,
  headers          nvarchar(max)    NOT NULL CONSTRAINT ${quote(`${t.inbox}_headers_df`)} DEFAULT N'{}',
  payload          nvarchar(max)    NOT NULL,
${claimColumns(t.inbox)}
  received_at      datetime2(3)     NOT NULL CONSTRAINT ${quote(`${t.inbox}_received_at_df`)} DEFAULT SYSUTCDATETIME(),
  finished_at      datetime2(3)     NULL,
  last_error       nvarchar(max)    NULL,
${constraints(t.inbox, 'processed')},
  CONSTRAINT ${quote(`${t.inbox}_source_idem_uq`)} UNIQUE (source, idempotency_key)
)`,
  ...createIndexes(t, 'inbox'),
];

export const dropOutboxTable = (t: ResolvedTableNames): string[] => [/* sql */ `DROP TABLE ${qualified(t, 'outbox')}`];

export const dropInboxTable = (t: ResolvedTableNames): string[] => [/* sql */ `DROP TABLE ${qualified(t, 'inbox')}`];
