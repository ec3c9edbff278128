import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { ClaimComponent } from '../../sql-dialect.interface.js';
import { CLAIMERS } from '../../../shared/queuebox.claimers.js';
import { CLAIMED_ROW_COLUMNS, type ClaimedRowColumn } from '../schema-columns.js';
import {
  DB_NOW,
  KEY_COLLATION,
  KEY_TYPE,
  READ_COMMITTED,
  SKIP_HINTS,
  UPDATE_HINTS,
  guidOut,
  jsonKeys,
  qualified,
  timeOut,
} from './mssql-names.js';

/*
 * The claim on SQL Server: the PostgreSQL dialect's bounded claim (contributing/claim-sql.md;
 * contributing/mssql-sql.md) as one request of several statements:
 *
 *   @candidates = heads of up to @2 keys walked from a cursor    (a WHILE loop, one seek per key)
 *               ∪ the @3 oldest keyed pending rows                (the window; per source for the inbox)
 *               ∪ the @0 oldest unordered pending rows of each stream, when due
 *               ∪ the @0 retried or reclaimed rows of each stream first due
 *               ∪ (pull) the @0 rows of the source whose lease ended
 *
 * then the heads of their key, read under update locks skipping held rows, marked by ONE UPDATE.
 *
 *   @0 batch  @1 lease ms  @2 keys to walk  @3 window rows  @4 cursor stream  @5 cursor key
 *   @6 JSON array of the claimer's streams
 *
 * It runs after the claim lock (claim-lock.sql.ts): claims of a table (of a pull source) are
 * serialized, so under READ_COMMITTED_SNAPSHOT the UPDATE's snapshot follows the previous
 * claimer's commit. Only the UPDATE writes; the statements before it fill table variables.
 */

const streamsTable = (kind: ClaimComponent): string => `@${CLAIMERS[kind].table.streams}`;

const COLUMN_TYPES: Record<ClaimedRowColumn, { stored: string; out: string }> = {
  id: { stored: 'bigint NOT NULL PRIMARY KEY', out: 'bigint' },
  message_id: { stored: 'uniqueidentifier NOT NULL', out: 'char(36)' },
  destination: { stored: `${KEY_TYPE} NOT NULL`, out: 'nvarchar(200)' },
  source: { stored: `${KEY_TYPE} NOT NULL`, out: 'nvarchar(200)' },
  idempotency_key: { stored: `${KEY_TYPE} NOT NULL`, out: 'nvarchar(200)' },
  ordering_key: { stored: `${KEY_TYPE} NULL`, out: 'nvarchar(200)' },
  headers: { stored: 'nvarchar(max) NOT NULL', out: 'nvarchar(max)' },
  payload: { stored: 'nvarchar(max) NOT NULL', out: 'nvarchar(max)' },
  claim_token: { stored: 'uniqueidentifier NOT NULL', out: 'char(36)' },
  attempts: { stored: 'int NOT NULL', out: 'int' },
  received_at: { stored: 'datetime2(3) NOT NULL', out: 'datetimeoffset(3)' },
};

export const claimColumns = (kind: ClaimComponent): readonly ClaimedRowColumn[] =>
  CLAIMED_ROW_COLUMNS[CLAIMERS[kind].table.name];

/** A table variable for claimed rows: claim columns and `first_try` (the only kind an inversion counts). */
export const claimedTable = (name: string, kind: ClaimComponent): string =>
  `DECLARE ${name} TABLE (${claimColumns(kind)
    .map((column) => `${column} ${COLUMN_TYPES[column].stored}`)
    .join(', ')}, first_try bit NOT NULL);`;

export const outputClaimedInto = (name: string, kind: ClaimComponent): string =>
  `OUTPUT ${claimColumns(kind)
    .map((column) => `inserted.${column}`)
    .join(', ')},
       CAST(CASE WHEN inserted.attempts = 1 AND inserted.last_error IS NULL THEN 1 ELSE 0 END AS bit)
INTO ${name} (${claimColumns(kind).join(', ')}, first_try)`;

export const candidateColumns = (kind: ClaimComponent, alias: string): string =>
  [...claimColumns(kind), 'state', 'claimed_at', 'lease_expires_at', 'last_error']
    .filter((column, index, all) => all.indexOf(column) === index)
    .map((column) => `${alias}.${column}`)
    .join(', ');

export const claimedOut = (kind: ClaimComponent, alias: string): string =>
  claimColumns(kind)
    .map((column) => {
      if (column === 'message_id' || column === 'claim_token') return `${guidOut(`${alias}.${column}`)} AS ${column}`;
      if (column === 'received_at') return `${timeOut(`${alias}.${column}`)} AS ${column}`;
      return `${alias}.${column}`;
    })
    .join(', ');

export const claimedNulls = (kind: ClaimComponent): string =>
  claimColumns(kind)
    .filter((column) => column !== 'id')
    .map((column) => `CAST(NULL AS ${COLUMN_TYPES[column].out}) AS ${column}`)
    .join(', ');

export const MARK_CLAIMED = (leaseParameter: string): string => `SET state = 'processing',
    claim_token = NEWID(),
    claimed_at = ${DB_NOW},
    lease_expires_at = DATEADD(millisecond, ${leaseParameter}, ${DB_NOW}),
    attempts = attempts + 1`;

export const sameKey = (kind: ClaimComponent, a: string, b: string): string =>
  `${a}.${CLAIMERS[kind].table.stream} = ${b}.${CLAIMERS[kind].table.stream} AND ${a}.ordering_key = ${b}.ordering_key`;

/**
 * (A): no older pending row of `o`'s key. No hints: it waits for a row being written and sees the
 * committed truth; READPAST would take a row being claimed or inserted for absent.
 */
export const olderPending = (t: ResolvedTableNames, kind: ClaimComponent, o: string): string =>
  `NOT EXISTS (SELECT 1 FROM ${qualified(t, CLAIMERS[kind].table.name)} AS b
                      WHERE b.state = 'pending' AND b.ordering_key IS NOT NULL AND ${sameKey(kind, 'b', o)} AND b.id < ${o}.id)`;

/**
 * Claimed row `c` is older than a finished row of its key (a late commit). Under locking READ
 * COMMITTED the anti-join (A) waits for such a producer, so this stays false; under
 * READ_COMMITTED_SNAPSHOT it can happen. A held row is skipped: a metric may miss one.
 */
function invertedColumn(t: ResolvedTableNames, kind: ClaimComponent, c: string): string {
  const { name: table, done } = CLAIMERS[kind].table;
  return `CAST(CASE WHEN ${c}.id IS NULL THEN NULL
                 WHEN ${c}.first_try = 1 AND ${c}.ordering_key IS NOT NULL
                      AND EXISTS (SELECT 1 FROM ${qualified(t, table)} AS y ${SKIP_HINTS}
                                  WHERE y.state IN ('${done}', 'dead') AND y.ordering_key IS NOT NULL
                                    AND ${sameKey(kind, 'y', c)} AND y.id > ${c}.id)
                 THEN 1 ELSE 0 END AS bit) AS inverted`;
}

/**
 * The walk: from the cursor, the head of each next key, `@2` at most, one seek of `key_pending_ix`
 * per step; the outbox hops to the next destination of `@6` without reading the table. T-SQL has no
 * row-value comparison and no TOP in recursive CTEs, hence the loop. A held row is skipped: the
 * walk may return a younger row (turned down by (A)) or miss a key this round.
 */
function walk(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  const next = `SELECT TOP (1) @next_stream = k.${stream}, @next_key = k.ordering_key, @next_id = k.id
  FROM ${table} AS k ${SKIP_HINTS}
  WHERE k.state = 'pending' AND k.ordering_key IS NOT NULL AND k.${stream} = @walk_stream AND k.ordering_key > @walk_key
  ORDER BY k.ordering_key, k.id;`;
  const together = CLAIMERS[kind].walk === 'together';
  const noNext = together
    ? `IF @next_id IS NULL
  BEGIN
    SET @next_stream = NULL;
    SELECT TOP (1) @next_stream = d.destination FROM @destinations AS d WHERE d.destination > @walk_stream ORDER BY d.destination;
    IF @next_stream IS NULL BREAK;
    SET @walk_stream = @next_stream;
    SET @walk_key = N'';
    CONTINUE;
  END;`
    : 'IF @next_id IS NULL BREAK;';
  // The outbox's cursor may name no destination of @destinations (the start, ''): then it hops at once.
  const probe = together
    ? `IF EXISTS (SELECT 1 FROM @destinations AS d WHERE d.destination = @walk_stream)\n    ${next.replace(/\n/g, '\n  ')}`
    : next;
  return `WHILE @walked < @2
BEGIN
  SET @next_id = NULL;
  ${probe}
  ${noNext}
  SET @walked = @walked + 1;
  SET @walk_stream = @next_stream;
  SET @walk_key = @next_key;
  SET @last_stream = @next_stream;
  SET @last_key = @next_key;
  INSERT INTO @candidates (id) VALUES (@next_id);
END;`;
}

/** The window, the unordered and the retried rows (and pull's expired leases), read without waiting. */
function otherCandidates(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  const due = `x.next_attempt_at <= ${DB_NOW}`;
  const perStream = (
    top: string,
    where: string,
    orderBy: string,
    windowed = false,
  ): string => `INSERT INTO @candidates (id${windowed ? ', window_source' : ''})
SELECT r.id${windowed ? ', s.source' : ''} FROM ${streamsTable(kind)} AS s
CROSS APPLY (SELECT TOP (${top}) x.id FROM ${table} AS x ${SKIP_HINTS}
             WHERE x.${stream} = s.${stream} AND ${where}${orderBy ? `\n             ORDER BY ${orderBy}` : ''}) AS r;`;
  // Ordered by the stream first, so only an index that leads with it yields the order (see PostgreSQL's perStream).
  const unkeyed = perStream('@0', `x.state = 'pending' AND x.ordering_key IS NULL AND ${due}`, `x.${stream}, x.id`);
  const retried = perStream(
    '@0',
    `x.state = 'pending' AND x.attempts > 0 AND ${due}`,
    `x.${stream}, x.next_attempt_at`,
  );
  if (CLAIMERS[kind].walk === 'together') {
    // The window: the oldest keyed rows of the whole table (@3 of them), of which those of other
    // destinations are dropped; they may fill it, never make it read more.
    return `INSERT INTO @candidates (id)
SELECT w.id FROM (SELECT TOP (@3) x.id, x.destination FROM ${table} AS x ${SKIP_HINTS}
                  WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL
                  ORDER BY x.id) AS w
WHERE w.destination IN (SELECT d.destination FROM @destinations AS d);
SET @window_rows = @@ROWCOUNT;
${unkeyed}
${retried}`;
  }
  const expired = CLAIMERS[kind].claimsExpired
    ? `\n${perStream('@0', `x.state = 'processing' AND x.lease_expires_at <= ${DB_NOW}`, '')}`
    : '';
  return `${perStream('@3', `x.state = 'pending' AND x.ordering_key IS NOT NULL`, 'x.source, x.id', true)}
SELECT @window_rows = COALESCE(MAX(per_source.n), 0)
FROM (SELECT COUNT(*) AS n FROM @candidates AS w WHERE w.window_source IS NOT NULL GROUP BY w.window_source) AS per_source;
${unkeyed}
${retried}${expired}`;
}

/**
 * Candidate `o` is claimable: pending, and for a keyed row the head of its key: (A) no older pending
 * row of its key; (B) none in flight. Pull also takes expired leases (B'). Anti-joins carry no hints.
 */
function claimable(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const source = ` AND o.${CLAIMERS[kind].table.stream} IN (SELECT s.${CLAIMERS[kind].table.stream} FROM ${streamsTable(kind)} AS s)`;
  if (!CLAIMERS[kind].claimsExpired) {
    return `o.state = 'pending' AND o.next_attempt_at <= ${DB_NOW}${source}
    AND (o.ordering_key IS NULL OR (${olderPending(t, kind, 'o')}
      AND NOT EXISTS (SELECT 1 FROM ${table} AS p WHERE p.state = 'processing' AND ${sameKey(kind, 'p', 'o')})))`;
  }
  return `((o.state = 'pending' AND o.next_attempt_at <= ${DB_NOW})
         OR (o.state = 'processing' AND o.lease_expires_at <= ${DB_NOW}))${source}
    AND (o.ordering_key IS NULL OR (${olderPending(t, kind, 'o')}
      AND NOT EXISTS (SELECT 1 FROM ${table} AS p
                      WHERE p.state = 'processing' AND ${sameKey(kind, 'p', 'o')}
                        AND (p.id < o.id OR (p.id <> o.id AND p.lease_expires_at > ${DB_NOW})))))`;
}

/**
 * The claim request of `kind` (parameters above). ONE result set: the progress columns `window_rows`,
 * `cursor_stream`, `cursor_key`, `walked`, then the claimed row's columns and `inverted` (bit): one
 * row per claimed row, or one row of NULL claim columns.
 */
export function claimStatement(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  const streams = `
DECLARE ${streamsTable(kind)} TABLE (${stream} ${KEY_TYPE} NOT NULL PRIMARY KEY);
INSERT INTO ${streamsTable(kind)} (${stream}) ${jsonKeys('@6', { distinct: true })};`;
  return /* sql */ `SET NOCOUNT ON;
SET XACT_ABORT ON;
${READ_COMMITTED}
DECLARE @candidates TABLE (id bigint NOT NULL, window_source ${KEY_TYPE} NULL);
${claimedTable('@claimed', kind)}
DECLARE @walk_stream nvarchar(200) = @4, @walk_key nvarchar(200) = @5, @walked int = 0, @window_rows int = 0;
DECLARE @next_stream nvarchar(200), @next_key nvarchar(200), @next_id bigint, @last_stream nvarchar(200), @last_key nvarchar(200);${streams}
${walk(t, kind)}
${otherCandidates(t, kind)}
WITH cand AS (
  SELECT TOP (@0) ${candidateColumns(kind, 'o')}
  FROM ${table} AS o ${UPDATE_HINTS}
  WHERE o.id IN (SELECT c.id FROM @candidates AS c)
    AND ${claimable(t, kind)}
  ORDER BY o.id
)
UPDATE cand
${MARK_CLAIMED('@1')}
${outputClaimedInto('@claimed', kind)};
SELECT p.window_rows, p.cursor_stream, p.cursor_key, p.walked,
       ${claimedOut(kind, 'c')},
       ${invertedColumn(t, kind, 'c')}
FROM (SELECT @window_rows AS window_rows,
             @last_stream AS cursor_stream,
             @last_key AS cursor_key,
             @walked AS walked) AS p
LEFT JOIN @claimed AS c ON 1 = 1
ORDER BY c.id;`;
}

/**
 * A cheap "anything due?" read after an idle poll: no transaction, no claim lock, no waiting, one
 * filtered index range per part. @0: JSON array of destinations (outbox) or sources (relay), or the
 * source (pull, expired leases count). Output: zero rows, or one row `due` (bit).
 */
export function dueProbe(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const source = CLAIMERS[kind].workerPerStream ? ' AND x.source = @0' : ' AND x.source IN (' + jsonKeys('@0') + ')';
  // The outbox's: a seek per destination of @0 (APPLY with TOP), whichever index an IN would pick.
  const part = (where: string): string =>
    CLAIMERS[kind].walk === 'together'
      ? `EXISTS (SELECT 1 FROM OPENJSON(@0) AS j
              CROSS APPLY (SELECT TOP (1) x.id FROM ${table} AS x ${SKIP_HINTS}
                           WHERE x.destination = CAST(j.value AS nvarchar(200)) COLLATE ${KEY_COLLATION} AND ${where}) AS r)`
      : `EXISTS (SELECT 1 FROM ${table} AS x ${SKIP_HINTS}
              WHERE ${where}${source})`;
  const due = `x.next_attempt_at <= ${DB_NOW}`;
  const parts = [
    part(`x.state = 'pending' AND x.ordering_key IS NULL AND ${due}`),
    part(`x.state = 'pending' AND x.ordering_key IS NOT NULL AND ${due}`),
    ...(CLAIMERS[kind].claimsExpired ? [part(`x.state = 'processing' AND x.lease_expires_at <= ${DB_NOW}`)] : []),
  ];
  return /* sql */ `${READ_COMMITTED}
SELECT CAST(1 AS bit) AS due
WHERE ${parts.join('\n   OR ')};`;
}
