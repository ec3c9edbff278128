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
