/*
 * The typed results of the dialects' statements: the contract both databases meet. Each statement
 * carries a decoder that turns its driver rows into one of these, so nothing above the dialects
 * reads a column name or knows how a driver returns a bigint, a UUID, a boolean or JSON.
 */

/** One row as a driver returns it. */
export type DriverRow = Readonly<Record<string, unknown>>;

/** An outbox row a claim (or a completion's hand-off) took. */
export interface ClaimedOutboxRow {
  id: string;
  messageId: string;
  destination: string;
  key: string | null;
  headers: Record<string, string>;
  payload: string;
  /** The claim token: the row's fence. */
  token: string;
  /** Claims of the row so far, this one included. */
  attempts: number;
  /** A late commit: the row is older than a finished row of its key (an order inversion). */
  inverted: boolean;
}

/** An inbox row a relay or pull claim (or a completion's hand-off) took. */
export interface ClaimedInboxRow {
  id: string;
  source: string;
  idempotencyKey: string;
  key: string | null;
  headers: Record<string, string>;
  payload: string;
  token: string;
  attempts: number;
  receivedAt: Date;
  inverted: boolean;
}

/** A position of a claim's walk over keys: after this (destination or source, key). */
export interface ClaimCursor {
  stream: string;
  key: string;
}

/** What a claim saw besides the rows it took: how far its window and its walk over keys went. */
export interface ClaimProgress {
  /** Rows in the window of oldest keyed rows (per source for the inbox: the fullest one). */
  windowRows: number;
  /** Keys walked, and the last one: where the next claim's walk starts. */
  walked: number;
  last?: ClaimCursor;
}

/**
 * The rows a claim took, and its progress. `skipped` says why no claim statement ran: the probe
 * found nothing due, or the claim gave way to another claimer (its lock was not granted in time,
 * or it was chosen as a deadlock victim); the progress then says nothing and the walk stays put.
 */
export interface ClaimResult<Row> {
  rows: Row[];
  progress: ClaimProgress;
  skipped?: 'nothing-due' | 'contended';
}

/** A row a batched completion returned: a finished row (`done`), or the next row of its key it claimed (`claimed`). */
export type CompletionRow<Row> = { outcome: 'done'; id: string } | { outcome: 'claimed'; row: Row };

/** A row a group renewal locked: renewed, or found lost. Rows it skipped (locked elsewhere) are not listed. */
export interface RenewalRow {
  id: string;
  renewed: boolean;
}

/** An outbox row an insert wrote. */
export interface InsertedOutboxRow {
  id: string;
  messageId: string;
}

/** One label (destination or source) of a backlog gauge. */
export interface BacklogRow {
  label: string;
  pending: number;
  oldestAgeSeconds: number;
}

/** Dead rows of one destination (outbox) or source (inbox). */
export interface DeadCountRow {
  label: string;
  dead: number;
}

/** What a start-up probe found out about the database (SQL Server: compatibility level, RCSI). */
export interface DatabaseFacts {
  /** Problems that stop QueueBox from working on this database. */
  problems: string[];
  /** Facts worth one log line at start-up. */
  notes: string[];
}

/**
 * What the start-up check found of QueueBox's tables: the columns of each table that exists, by
 * its name in the catalog; a table that does not exist is absent.
 */
export interface TableColumns {
  outbox?: readonly string[];
  inbox?: readonly string[];
}

/**
 * What a database error means to the claim mechanism, across drivers: a deadlock victim, a claim
 * lock not granted in time, a request the driver timed out, or a write refused because the
 * session is on a read-only server (a demoted primary, a standby); to the tools, a table that is
 * not there (migrations not run, or another schema); and to the statement catalog, a named
 * prepared statement the serving session does not have (a pooler moved the connection).
 */
export type DatabaseErrorKind =
  | 'deadlock'
  | 'lock-not-granted'
  | 'timeout'
  | 'read-only'
  | 'missing-table'
  | 'prepared-statement-lost'
  | 'connection-lost';
