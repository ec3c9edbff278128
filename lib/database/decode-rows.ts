import type {
  BlockedKey,
  ClaimAtRisk,
  DeadLetterDetail,
  QueueBoxTable,
  RowStateRow,
} from '../shared/interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../shared/interfaces/dead-letter.interface.js';
import type {
  BacklogRow,
  DeadCountRow,
  ClaimedInboxRow,
  ClaimedOutboxRow,
  ClaimProgress,
  ClaimResult,
  CompletionRow,
  DriverRow,
  InsertedOutboxRow,
  RenewalRow,
  TableColumns,
} from './statement-results.js';
import type { PendingWorkRow } from '../shared/interfaces/pending-work.interface.js';
import { isQueueBoxTable } from '../shared/queuebox.claimers.js';

/*
 * Decoders of the statement results (statement-results.ts). The dialects alias every column to
 * the same name; the drivers differ in the types they return, and these read both:
 *
 *   bigint      node-postgres: string             tedious: string
 *   uuid        node-postgres: lower-case string  tedious: upper-case unless converted in SQL
 *   boolean     node-postgres: boolean            tedious (bit): boolean
 *   JSON        node-postgres (jsonb): object     tedious (nvarchar): text
 *   timestamp   node-postgres: Date               tedious (datetimeoffset): Date
 */

const text = (value: unknown): string => String(value);
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** Upper-case letters, which only tedious sends: node-postgres's lower-case uuids are kept as they came (no new string per row). */
const UPPER_CASE = /[A-Z]/;
export const uuid = (value: unknown): string => {
  const given = String(value);
  return UPPER_CASE.test(given) ? given.toLowerCase() : given;
};
const int = (value: unknown): number => Number(value);
const bool = (value: unknown): boolean => value === true || value === 1 || value === '1';
const date = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const nullableDate = (value: unknown): Date | null => (value === null || value === undefined ? null : date(value));

/** Headers as stored: a JSON object of strings (jsonb arrives parsed, nvarchar as text). */
function headers(value: unknown): Record<string, string> {
  if (typeof value === 'string') return JSON.parse(value) as Record<string, string>;
  return { ...(value as Record<string, string>) };
}

export const decodeIds = (rows: readonly DriverRow[]): string[] => rows.map((row) => text(row.id));

/** The first row's `id`, or undefined when no row came back (an inbox duplicate). */
export const decodeOptionalId = (rows: readonly DriverRow[]): string | undefined =>
  rows.length > 0 ? text(rows[0].id) : undefined;

export const decodeAnyRow = (rows: readonly DriverRow[]): boolean => rows.length > 0;

export const decodeNothing = (): void => undefined;

export const decodeOutboxRow = (row: DriverRow): ClaimedOutboxRow => ({
  id: text(row.id),
  messageId: uuid(row.message_id),
  destination: text(row.destination),
  key: nullableText(row.ordering_key),
  headers: headers(row.headers),
  payload: text(row.payload),
  token: uuid(row.claim_token),
  attempts: int(row.attempts),
  inverted: bool(row.inverted),
});

export const decodeInboxRow = (row: DriverRow): ClaimedInboxRow => ({
  id: text(row.id),
  source: text(row.source),
  idempotencyKey: text(row.idempotency_key),
  key: nullableText(row.ordering_key),
  headers: headers(row.headers),
  payload: text(row.payload),
  token: uuid(row.claim_token),
  attempts: int(row.attempts),
  receivedAt: date(row.received_at),
  inverted: bool(row.inverted),
});

/**
 * A claim's rows: the first carries the progress columns (`window_rows`, `cursor_stream`,
 * `cursor_key`, `walked`), every row the claimed row's columns, all NULL when none was claimed.
 */
export function claimDecoder<Row>(
  decodeRow: (row: DriverRow) => Row,
): (rows: readonly DriverRow[]) => ClaimResult<Row> {
  return (rows) => {
    const [first] = rows;
    const progress: ClaimProgress = {
      windowRows: first ? int(first.window_rows ?? 0) : 0,
      walked: first ? int(first.walked ?? 0) : 0,
      last:
        first?.cursor_stream != null
          ? { stream: text(first.cursor_stream), key: text(first.cursor_key ?? '') }
          : undefined,
    };
    const claimed: Row[] = [];
    for (const row of rows) if (row.id !== null && row.id !== undefined) claimed.push(decodeRow(row));
    return { rows: claimed, progress };
  };
}

/** A completion's rows: `outcome` 'done' with the finished id, or 'claimed' with a handed-on row. */
export function completionDecoder<Row>(
  decodeRow: (row: DriverRow) => Row,
): (rows: readonly DriverRow[]) => CompletionRow<Row>[] {
  return (rows) =>
    rows.map((row) =>
      row.outcome === 'claimed' ? { outcome: 'claimed', row: decodeRow(row) } : { outcome: 'done', id: text(row.id) },
    );
}

export const decodeRenewals = (rows: readonly DriverRow[]): RenewalRow[] =>
  rows.map((row) => ({ id: text(row.id), renewed: bool(row.renewed) }));

export const decodeInsertedOutbox = (rows: readonly DriverRow[]): InsertedOutboxRow[] =>
  rows.map((row) => ({ id: text(row.id), messageId: uuid(row.message_id) }));

export const decodeBacklog = (rows: readonly DriverRow[]): BacklogRow[] =>
  rows.map((row) => ({
    label: text(row.label),
    pending: int(row.pending),
    oldestAgeSeconds: Math.max(0, Number(row.oldest_age_seconds)),
  }));

export const decodeDeadCounts = (rows: readonly DriverRow[]): DeadCountRow[] =>
  rows.map((row) => ({ label: text(row.label), dead: int(row.dead) }));

export const decodeDeadOutbox = (rows: readonly DriverRow[]): DeadOutboxMessage[] =>
  rows.map((row) => ({
    id: text(row.id),
    messageId: uuid(row.message_id),
    destination: text(row.destination),
    key: nullableText(row.ordering_key),
    attempts: int(row.attempts),
    lastError: nullableText(row.last_error),
    finishedAt: nullableDate(row.finished_at),
  }));

export const decodeDeadInbox = (rows: readonly DriverRow[]): DeadInboxMessage[] =>
  rows.map((row) => ({
    id: text(row.id),
    source: text(row.source),
    idempotencyKey: text(row.idempotency_key),
    key: nullableText(row.ordering_key),
    attempts: int(row.attempts),
    lastError: nullableText(row.last_error),
    finishedAt: nullableDate(row.finished_at),
  }));

/** What identifies a dead row besides its id: the outbox's message id, the inbox's idempotency key. */
const IDENTITY: Readonly<
  Record<QueueBoxTable, (row: DriverRow) => { messageId: string } | { idempotencyKey: string }>
> = {
  outbox: (row) => ({ messageId: uuid(row.message_id) }),
  inbox: (row) => ({ idempotencyKey: text(row.idempotency_key) }),
};

function tableNamed(name: string): QueueBoxTable {
  if (!isQueueBoxTable(name)) throw new Error(`QueueBox: a statement returned rows of an unknown table "${name}"`);
  return name;
}

export function deadDetailDecoder(table: QueueBoxTable): (rows: readonly DriverRow[]) => DeadLetterDetail | undefined {
  return (rows) => {
    const [row] = rows;
    if (!row) return undefined;
    return {
      table,
      id: text(row.id),
      ...IDENTITY[table](row),
      stream: text(row.stream),
      key: nullableText(row.ordering_key),
      attempts: int(row.attempts),
      lastError: nullableText(row.last_error),
      headers: headers(row.headers),
      createdAt: date(row.created_at),
      finishedAt: nullableDate(row.finished_at),
      ...(row.payload === null || row.payload === undefined ? {} : { payload: text(row.payload) }),
    };
  };
}

export function blockedKeysDecoder(table: QueueBoxTable): (rows: readonly DriverRow[]) => BlockedKey[] {
  return (rows) =>
    rows.map((row) => ({
      table,
      stream: text(row.stream),
      key: text(row.ordering_key),
      id: text(row.id),
      reason: row.reason === 'dead' ? 'dead' : 'retrying',
      attempts: int(row.attempts),
      lastError: nullableText(row.last_error),
      ageSeconds: Math.max(0, Number(row.age_seconds)),
      waiting: int(row.waiting),
    }));
}

export function claimsAtRiskDecoder(table: QueueBoxTable): (rows: readonly DriverRow[]) => ClaimAtRisk[] {
  return (rows) =>
    rows.map((row) => ({
      table,
      id: text(row.id),
      stream: text(row.stream),
      key: nullableText(row.ordering_key),
      attempts: int(row.attempts),
      claimedAt: date(row.claimed_at),
      leaseExpiresAt: date(row.lease_expires_at),
      expiresInMs: Math.round(Number(row.expires_in_ms)),
    }));
}

export const decodeRowStates = (rows: readonly DriverRow[]): RowStateRow[] =>
  rows.map((row) => ({
    id: text(row.id),
    state: text(row.state) as RowStateRow['state'],
    attempts: int(row.attempts),
  }));
export const decodePendingWork = (rows: readonly DriverRow[]): PendingWorkRow[] =>
  rows.map((row) => ({
    table: tableNamed(text(row.table_name)),
    stream: text(row.stream),
    due: int(row.due),
    inFlight: int(row.in_flight),
    scheduled: int(row.scheduled),
    nextDueInMs:
      row.next_due_in_ms === null || row.next_due_in_ms === undefined
        ? undefined
        : Math.max(0, Number(row.next_due_in_ms)),
  }));

export const decodeNow = (rows: readonly DriverRow[]): Date => date(rows[0]?.now);

export const decodePresent = (rows: readonly DriverRow[]): boolean => rows.length === 1 && bool(rows[0].present);

export function decodeTableColumns(rows: readonly DriverRow[]): TableColumns {
  const found: { outbox?: string[]; inbox?: string[] } = {};
  for (const row of rows) {
    const table = text(row.table_key);
    if (!isQueueBoxTable(table) || !bool(row.present)) continue;
    const columns = (found[table] ??= []);
    if (row.column_name !== null && row.column_name !== undefined) columns.push(text(row.column_name));
  }
  return found;
}
