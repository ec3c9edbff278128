/*
 * The columns of QueueBox's tables in the current schema version, the same names on every
 * database (docs/reference/schema.md). The schema steps say which of them each step brings, and
 * the start-up check expects them all; tests hold these lists to the DDL.
 */

/** The claim columns both tables have (docs/concepts/claims-and-leases.md). */
const CLAIM_COLUMNS = [
  'state',
  'claim_token',
  'claimed_at',
  'lease_expires_at',
  'attempts',
  'next_attempt_at',
] as const;

export const OUTBOX_COLUMNS: readonly string[] = [
  'id',
  'message_id',
  'ordering_key',
  'destination',
  'headers',
  'payload',
  ...CLAIM_COLUMNS,
  'created_at',
  'finished_at',
  'last_error',
];

export const INBOX_COLUMNS: readonly string[] = [
  'id',
  'source',
  'idempotency_key',
  'ordering_key',
  'headers',
  'payload',
  ...CLAIM_COLUMNS,
  'received_at',
  'finished_at',
  'last_error',
];

/** What the outbox claim and its hand-off return of each claimed row, on every database (its decoder reads them). */
export const OUTBOX_CLAIM_COLUMNS = [
  'id',
  'message_id',
  'destination',
  'ordering_key',
  'headers',
  'payload',
  'claim_token',
  'attempts',
] as const;

/** What the relay and pull claims and their hand-off return of each claimed inbox row, on every database. */
export const INBOX_CLAIM_COLUMNS = [
  'id',
  'source',
  'idempotency_key',
  'ordering_key',
  'headers',
  'payload',
  'claim_token',
  'attempts',
  'received_at',
] as const;

/** A column a claim returns. */
export type ClaimedRowColumn = (typeof OUTBOX_CLAIM_COLUMNS)[number] | (typeof INBOX_CLAIM_COLUMNS)[number];

/** The columns a claim returns, by the table it claims from (the inbox's for the relay and pull). */
export const CLAIMED_ROW_COLUMNS: Record<'outbox' | 'inbox', readonly ClaimedRowColumn[]> = {
  outbox: OUTBOX_CLAIM_COLUMNS,
  inbox: INBOX_CLAIM_COLUMNS,
};
