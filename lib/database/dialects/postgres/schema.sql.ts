import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { INBOX_COLUMNS, OUTBOX_COLUMNS } from '../schema-columns.js';
import type { SchemaStep } from '../schema-step.interface.js';
import { WINDOW_ONLY } from './plan-fences.sql.js';
import { qualified, quote } from './postgres-names.js';

/*
 * DDL run by the TypeORM migration classes only. Shipped versions never change (versions only add).
 * `state` is text + CHECK, always written as literals, so the planner matches the partial indexes.
 */

const CLAIM_COLUMNS = `  state            text        NOT NULL DEFAULT 'pending',
  claim_token      uuid        NULL,
  claimed_at       timestamptz NULL,
  lease_expires_at timestamptz NULL,
  attempts         integer     NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT statement_timestamp(),`;

/** A half-written claim is impossible: a processing row always has its token, lease and claim time. */
const CLAIM_CHECK = `CHECK (state <> 'processing'
    OR (claim_token IS NOT NULL AND lease_expires_at IS NOT NULL AND claimed_at IS NOT NULL))`;

export const createOutboxTable = (t: ResolvedTableNames): string[] => {
  const table = qualified(t, 'outbox');
  const ix = (suffix: string): string => quote(`${t.outbox}_${suffix}`);
  return [
    /* sql */ `CREATE TABLE ${table} (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id       uuid        NOT NULL,
  ordering_key     text        NULL,
  destination      text        NOT NULL,
  headers          jsonb       NOT NULL DEFAULT '{}'::jsonb,
  payload          text        NOT NULL,
${CLAIM_COLUMNS}
  created_at       timestamptz NOT NULL DEFAULT statement_timestamp(),
  finished_at      timestamptz NULL,
  last_error       text        NULL,
  CONSTRAINT ${ix('message_id_uq')} UNIQUE (message_id),
  CONSTRAINT ${ix('state_ck')} CHECK (state IN ('pending', 'processing', 'sent', 'dead')),
  CONSTRAINT ${ix('claim_ck')} ${CLAIM_CHECK}
)`,
    // Claim candidates in FIFO order: pending rows only.
    /* sql */ `CREATE INDEX ${ix('pending_ix')} ON ${table} (id) WHERE state = 'pending'`,
    // Claim anti-join (A): an older unfinished row of the same key.
    /* sql */ `CREATE INDEX ${ix('key_unfinished_ix')} ON ${table} (ordering_key, id) WHERE state IN ('pending', 'processing')`,
    // Claim anti-join (B) and the reclaim: rows in flight.
    /* sql */ `CREATE INDEX ${ix('processing_ix')} ON ${table} (ordering_key, lease_expires_at) WHERE state = 'processing'`,
    // Inversion check: a younger row of the key that was ever claimed. Rows enter at their first
    // claim, so producers' inserts do not pay for it.
    /* sql */ `CREATE INDEX ${ix('claimed_ix')} ON ${table} (ordering_key, id) WHERE attempts > 0`,
    // Dead-letter listing and retention of finished rows.
    /* sql */ `CREATE INDEX ${ix('finished_ix')} ON ${table} (finished_at) WHERE state IN ('sent', 'dead')`,
  ];
};

export const dropOutboxTable = (t: ResolvedTableNames): string[] => [/* sql */ `DROP TABLE ${qualified(t, 'outbox')}`];

export const createSchema = (t: ResolvedTableNames): string[] =>
  t.schema ? [/* sql */ `CREATE SCHEMA IF NOT EXISTS ${quote(t.schema)}`] : [];

export const createInboxTable = (t: ResolvedTableNames): string[] => {
  const table = qualified(t, 'inbox');
  const ix = (suffix: string): string => quote(`${t.inbox}_${suffix}`);
  return [
    /* sql */ `CREATE TABLE ${table} (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source           text        NOT NULL,
  idempotency_key  text        NOT NULL,
  aggregate_key    text        NULL,
  headers          jsonb       NOT NULL DEFAULT '{}'::jsonb,
  payload          text        NOT NULL,
${CLAIM_COLUMNS}
  received_at      timestamptz NOT NULL DEFAULT statement_timestamp(),
  finished_at      timestamptz NULL,
  last_error       text        NULL,
  CONSTRAINT ${ix('source_idem_uq')} UNIQUE (source, idempotency_key),
  CONSTRAINT ${ix('state_ck')} CHECK (state IN ('pending', 'processing', 'processed', 'dead')),
  CONSTRAINT ${ix('claim_ck')} ${CLAIM_CHECK}
)`,
    // Relay claim candidates in FIFO order.
    /* sql */ `CREATE INDEX ${ix('pending_ix')} ON ${table} (id) WHERE state = 'pending'`,
    // Pull claim candidates of one source (pending, or processing with an expired lease).
    /* sql */ `CREATE INDEX ${ix('src_unfinished_ix')} ON ${table} (source, id) WHERE state IN ('pending', 'processing')`,
    // Claim anti-join (A): an older unfinished row of the same aggregate.
    /* sql */ `CREATE INDEX ${ix('agg_unfinished_ix')} ON ${table} (source, aggregate_key, id) WHERE state IN ('pending', 'processing')`,
    // Claim anti-join (B) and the reclaim: rows in flight.
    /* sql */ `CREATE INDEX ${ix('processing_ix')} ON ${table} (source, aggregate_key, lease_expires_at) WHERE state = 'processing'`,
    // Inversion check: a younger row of the aggregate that was ever claimed.
    /* sql */ `CREATE INDEX ${ix('claimed_ix')} ON ${table} (source, aggregate_key, id) WHERE attempts > 0`,
    // Dead-letter listing and retention of finished rows.
    /* sql */ `CREATE INDEX ${ix('finished_ix')} ON ${table} (finished_at) WHERE state IN ('processed', 'dead')`,
  ];
};

export const dropInboxTable = (t: ResolvedTableNames): string[] => [/* sql */ `DROP TABLE ${qualified(t, 'inbox')}`];

const qualifiedIndex = (t: ResolvedTableNames, table: 'outbox' | 'inbox', suffix: string): string =>
  t.schema ? `${quote(t.schema)}.${quote(`${t[table]}_${suffix}`)}` : quote(`${t[table]}_${suffix}`);

/**
 * The indexes of schema version 2. Every partial index holds rows of one state only, so a state
 * change adds entries only to the indexes of the new state.
 */
const V2_INDEXES = {
  outbox: [
    // Claim, window: the oldest keyed pending rows (heads of keys near the front of the queue).
    ['keyed_pending_ix', `(id) WHERE state = 'pending' AND ordering_key IS NOT NULL`],
    // Claim: the oldest unordered pending rows, however deep the keyed backlog ahead of them.
    ['unkeyed_pending_ix', `(id) WHERE state = 'pending' AND ordering_key IS NULL`],
    // Claim, walk over keys (one probe per key, whatever its depth), the head of a key, anti-join (A),
    // and the hand-off of a completion to the next row of its key.
    ['key_pending_ix', `(destination, ordering_key, id) WHERE state = 'pending' AND ordering_key IS NOT NULL`],
    // Claim anti-join (B), reclaim of expired leases.
    ['processing_ix', `(destination, ordering_key, lease_expires_at) WHERE state = 'processing'`],
    // Claim: retried and reclaimed rows once due, wherever they are in the queue.
    ['retried_ix', `(next_attempt_at) WHERE state = 'pending' AND attempts > 0`],
    // Order inversions (a claim of a row older than a finished row of its key).
    ['key_finished_ix', `(destination, ordering_key, id) WHERE state IN ('sent', 'dead') AND ordering_key IS NOT NULL`],
    // Dead-letter listing.
    ['dead_ix', `(id) WHERE state = 'dead'`],
  ],
  inbox: [
    ['keyed_pending_ix', `(source, id) WHERE state = 'pending' AND ordering_key IS NOT NULL`],
    ['unkeyed_pending_ix', `(source, id) WHERE state = 'pending' AND ordering_key IS NULL`],
    ['key_pending_ix', `(source, ordering_key, id) WHERE state = 'pending' AND ordering_key IS NOT NULL`],
    // Also the pull claim's expired leases of a source.
    ['processing_ix', `(source, ordering_key, lease_expires_at) WHERE state = 'processing'`],
    ['retried_ix', `(source, next_attempt_at) WHERE state = 'pending' AND attempts > 0`],
    ['key_finished_ix', `(source, ordering_key, id) WHERE state IN ('processed', 'dead') AND ordering_key IS NOT NULL`],
    ['dead_ix', `(id) WHERE state = 'dead'`],
  ],
} as const;

const V1_INDEXES = {
  outbox: [
    ['pending_ix', `(id) WHERE state = 'pending'`],
    ['key_unfinished_ix', `(ordering_key, id) WHERE state IN ('pending', 'processing')`],
    ['processing_ix', `(ordering_key, lease_expires_at) WHERE state = 'processing'`],
    ['claimed_ix', `(ordering_key, id) WHERE attempts > 0`],
    ['finished_ix', `(finished_at) WHERE state IN ('sent', 'dead')`],
  ],
  inbox: [
    ['pending_ix', `(id) WHERE state = 'pending'`],
    ['src_unfinished_ix', `(source, id) WHERE state IN ('pending', 'processing')`],
    ['agg_unfinished_ix', `(source, aggregate_key, id) WHERE state IN ('pending', 'processing')`],
    ['processing_ix', `(source, aggregate_key, lease_expires_at) WHERE state = 'processing'`],
    ['claimed_ix', `(source, aggregate_key, id) WHERE attempts > 0`],
    ['finished_ix', `(finished_at) WHERE state IN ('processed', 'dead')`],
  ],
} as const;

const createIndexes = (
  t: ResolvedTableNames,
  table: 'outbox' | 'inbox',
  indexes: readonly (readonly [string, string])[],
): string[] =>
  indexes.map(
    ([suffix, definition]) =>
      /* sql */ `CREATE INDEX ${quote(`${t[table]}_${suffix}`)} ON ${qualified(t, table)} ${definition}`,
  );

const dropIndexes = (
  t: ResolvedTableNames,
  table: 'outbox' | 'inbox',
  indexes: readonly (readonly [string, string])[],
): string[] => indexes.map(([suffix]) => /* sql */ `DROP INDEX ${qualifiedIndex(t, table, suffix)}`);

/**
 * Schema version 2: bounded claims (contributing/claim-sql.md). The inbox's key column is renamed
 * `ordering_key`; the unique index on `message_id` goes (random UUIDv7s, never looked up).
 */
export const upgradeToV2 = (t: ResolvedTableNames): string[] => [
  /* sql */ `ALTER TABLE ${qualified(t, 'outbox')} DROP CONSTRAINT ${quote(`${t.outbox}_message_id_uq`)}`,
  ...dropIndexes(t, 'outbox', V1_INDEXES.outbox),
  ...dropIndexes(t, 'inbox', V1_INDEXES.inbox),
  /* sql */ `ALTER TABLE ${qualified(t, 'inbox')} RENAME COLUMN aggregate_key TO ordering_key`,
  ...createIndexes(t, 'outbox', V2_INDEXES.outbox),
  ...createIndexes(t, 'inbox', V2_INDEXES.inbox),
];

export const downgradeFromV2 = (t: ResolvedTableNames): string[] => [
  ...dropIndexes(t, 'inbox', V2_INDEXES.inbox),
  ...dropIndexes(t, 'outbox', V2_INDEXES.outbox),
  /* sql */ `ALTER TABLE ${qualified(t, 'inbox')} RENAME COLUMN ordering_key TO aggregate_key`,
  ...createIndexes(t, 'inbox', V1_INDEXES.inbox),
  ...createIndexes(t, 'outbox', V1_INDEXES.outbox),
  /* sql */ `ALTER TABLE ${qualified(t, 'outbox')} ADD CONSTRAINT ${quote(`${t.outbox}_message_id_uq`)} UNIQUE (message_id)`,
];

/** The outbox indexes version 3 leads with `destination`, so other destinations' rows cost a claim nothing. */
const V3_INDEXES = {
  before: [
    ['unkeyed_pending_ix', `(id) WHERE state = 'pending' AND ordering_key IS NULL`],
    ['retried_ix', `(next_attempt_at) WHERE state = 'pending' AND attempts > 0`],
  ],
  after: [
    // Claim: the oldest unordered pending rows of each destination, however deep the keyed backlog ahead of them.
    ['unkeyed_pending_ix', `(destination, id) WHERE state = 'pending' AND ordering_key IS NULL`],
    // Claim: the retried and reclaimed rows of each destination once due, wherever they are in the queue.
    ['retried_ix', `(destination, next_attempt_at) WHERE state = 'pending' AND attempts > 0`],
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

/**
 * Version 4 redefines `keyed_pending_ix` with {@link WINDOW_ONLY}, so that the claim's window alone
 * reads it. Before it, a generic plan made while the queue was nearly empty could read that index in
 * id order, filtered by key, to find one key's rows: a cost in proportion to the backlog.
 */
const V4_WINDOW_INDEXES = {
  outbox: {
    before: `(id) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    after: `(id) WHERE state = 'pending' AND ordering_key IS NOT NULL AND ${WINDOW_ONLY}`,
  },
  inbox: {
    before: `(source, id) WHERE state = 'pending' AND ordering_key IS NOT NULL`,
    after: `(source, id) WHERE state = 'pending' AND ordering_key IS NOT NULL AND ${WINDOW_ONLY}`,
  },
} as const;

const redefineWindowIndexes = (t: ResolvedTableNames, from: 'before' | 'after', to: 'before' | 'after'): string[] =>
  (['outbox', 'inbox'] as const).flatMap((table) => [
    ...dropIndexes(t, table, [['keyed_pending_ix', V4_WINDOW_INDEXES[table][from]]]),
    ...createIndexes(t, table, [['keyed_pending_ix', V4_WINDOW_INDEXES[table][to]]]),
  ]);

export const upgradeToV4 = (t: ResolvedTableNames): string[] => redefineWindowIndexes(t, 'before', 'after');
export const downgradeFromV4 = (t: ResolvedTableNames): string[] => redefineWindowIndexes(t, 'after', 'before');

/** QueueBox's schema on PostgreSQL, version by version. Shipped steps never change. */
export const postgresSchemaSteps = (t: ResolvedTableNames): SchemaStep[] => [
  {
    name: 'Outbox',
    version: 1764460800000,
    up: [...createSchema(t), ...createOutboxTable(t)],
    down: dropOutboxTable(t),
    columns: { outbox: OUTBOX_COLUMNS },
  },
  // The inbox's key column is created as aggregate_key: it is version 2's.
  {
    name: 'Inbox',
    version: 1764547200000,
    up: createInboxTable(t),
    down: dropInboxTable(t),
    columns: { inbox: INBOX_COLUMNS.filter((column) => column !== 'ordering_key') },
  },
  {
    name: 'SchemaV2',
    version: 1764979200000,
    up: upgradeToV2(t),
    down: downgradeFromV2(t),
    columns: { inbox: ['ordering_key'] },
  },
  // The outbox's indexes only (the claim's reads per destination): named with the table when it is
  // missing; no column for the start-up check to look for once it is there.
  { name: 'SchemaV3', version: 1796515200000, up: upgradeToV3(t), down: downgradeFromV3(t), columns: { outbox: [] } },
  // PostgreSQL only: the window's index of both tables (plans bounded whatever the statistics).
  { name: 'SchemaV4', version: 1796558400000, up: upgradeToV4(t), down: downgradeFromV4(t), columns: { outbox: [] } },
];
