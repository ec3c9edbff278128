/*
 * The values statements take besides scalars, already validated: what a caller hands the
 * statement methods of `SqlDialect`, and the definitions (statements.ts) bind.
 */

/** The fields of one outbox row to insert, already validated and serialized. */
export interface OutboxInsertRow {
  messageId: string;
  destination: string;
  key: string | null;
  headers: string;
  payload: string;
  delayMs: number;
}

/** The fields of one inbox row to insert, already validated and serialized. */
export interface InboxInsertRow {
  source: string;
  idempotencyKey: string;
  key: string | null;
  headers: string;
  payload: string;
}

/** An id and token pair of a claim, for the fenced writes. */
export interface FencedRow {
  id: string;
  token: string;
}

/**
 * A validated filter of dead rows, as the dead-letter statements bind it: NULL matches every row.
 * `stream` is the destination (outbox) or the source (inbox); times are instants.
 */
export interface DeadRowFilter {
  stream: string | null;
  errorContains: string | null;
  deadSince: Date | null;
  deadBefore: Date | null;
}

/** A keyset position in dead rows of a filter: after this id, at most `limit` rows. */
export interface DeadRowPage {
  filter: DeadRowFilter;
  afterId: string;
  limit: number;
}
