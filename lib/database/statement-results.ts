/*
 * The typed results of the dialects' statements: the contract both databases meet. Nothing above
 * the dialects reads a column name or knows how a driver returns a bigint, UUID, boolean or JSON.
 */

export type DriverRow = Readonly<Record<string, unknown>>;

export interface ClaimedOutboxRow {
  id: string;
  messageId: string;
  destination: string;
  key: string | null;
  headers: Record<string, string>;
  payload: string;
  /** The claim token: the row's fence. */
  token: string;
  attempts: number;
  /** A late commit: the row is older than a finished row of its key (an order inversion). */
  inverted: boolean;
}

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
 * The rows a claim took, and its progress. `skipped`: no claim statement ran (nothing due, or the
 * claim gave way to another claimer); the progress then says nothing and the walk stays put.
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

export interface InsertedOutboxRow {
  id: string;
  messageId: string;
}

export interface BacklogRow {
  label: string;
  pending: number;
  oldestAgeSeconds: number;
}

export interface DeadCountRow {
  label: string;
  dead: number;
}

/** What a start-up probe found out about the database (SQL Server: compatibility level, RCSI). */
export interface DatabaseFacts {
  problems: string[];
  notes: string[];
}

/** The columns of each of QueueBox's tables that exists, by catalog name; a missing table is absent. */
export interface TableColumns {
  outbox?: readonly string[];
  inbox?: readonly string[];
}

/**
 * What a database error means, across drivers: deadlock victim, claim lock not granted, driver
 * timeout, write refused on a read-only server, missing table, or a prepared statement the session
 * does not have (a pooler moved the connection).
 */
export type DatabaseErrorKind =
  | 'deadlock'
  | 'lock-not-granted'
  | 'timeout'
  | 'read-only'
  | 'missing-table'
  | 'prepared-statement-lost'
  | 'connection-lost';
