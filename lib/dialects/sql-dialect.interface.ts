import type { ResolvedTableNames } from '../options/resolved-options.interface.js';

/** One SQL statement with its bound values. Values are never interpolated into `sql`. */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** Set on the hot statements: run as a prepared statement of this name, where the driver can. */
  readonly name?: string;
}

/** A table that holds claimable rows, and the state that finishes a row there. */
export type ClaimTable = 'outbox' | 'inbox';

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

/** An id and token pair of a claim, for the batched forms of fenced writes. */
export interface FencedRow {
  id: string;
  token: string;
}

/** Where a claim's walk over keys starts: after this (destination or source, key). */
export interface ClaimCursor {
  stream: string;
  key: string;
}

/**
 * The bounds of one claim (docs/internals/claim-sql.md, "The claim"): at most `batchSize` rows,
 * from the heads of at most `walkKeys` keys after `cursor` and the `windowRows` oldest keyed rows.
 */
export interface ClaimRequest {
  batchSize: number;
  leaseMs: number;
  walkKeys: number;
  windowRows: number;
  cursor: ClaimCursor;
}

/**
 * The SQL of one database. Implementations are pure: they build statement text from validated
 * identifiers and put every value in `params`. Only the `ClaimRepository` and the services'
 * insert paths execute them.
 */
export interface SqlDialect {
  readonly type: 'postgres' | 'mssql';
  readonly tables: ResolvedTableNames;

  insertOutbox(rows: readonly OutboxInsertRow[]): SqlStatement;
  claimOutbox(request: ClaimRequest): SqlStatement;
  /** Statements to run, in the claim's transaction, before a serialized claim of `table`. */
  claimLock(table: ClaimTable): readonly SqlStatement[];

  /** Inserts unless (source, idempotency key) exists; returns the new id, or no row for a duplicate. */
  insertInbox(row: InboxInsertRow): SqlStatement;
  findInbox(source: string, idempotencyKey: string): SqlStatement;
  claimInbox(sources: readonly string[], request: ClaimRequest): SqlStatement;
  claimPull(source: string, request: ClaimRequest): SqlStatement;
  /** Statements to run, in the claim's transaction, before a serialized pull claim of `source`. */
  pullClaimLock(source: string): readonly SqlStatement[];
  inboxBacklog(): SqlStatement;

  renew(table: ClaimTable, row: FencedRow, leaseMs: number): SqlStatement;
  /** Renews a group of claims; rows locked by another transaction are skipped, never waited for. */
  renewMany(table: ClaimTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement;
  /**
   * Finishes rows, each fenced by its own token; with `handOffLeaseMs`, claims the next row of
   * each finished key in the same statement (`kind` says whose claim columns come back).
   */
  completeMany(kind: 'outbox' | 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement;
  retry(table: ClaimTable, row: FencedRow, delayMs: number, error: string): SqlStatement;
  deadLetter(table: ClaimTable, row: FencedRow, error: string): SqlStatement;
  /** Expired claims back to pending; for the inbox, only those of `sources` (the relay's). */
  reclaimExpired(table: ClaimTable, limit: number, sources?: readonly string[]): SqlStatement;

  outboxBacklog(): SqlStatement;
  /** Dead rows of a table, oldest first, after `afterId`. */
  listDead(table: ClaimTable, afterId: string, limit: number): SqlStatement;
  /** Deletes up to `limit` rows finished (`done`) or dead longer than `olderThanMs` ago. */
  purgeFinished(table: ClaimTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement;
  /** Dead rows back to pending; returns the ids that were dead. */
  replayDead(table: ClaimTable, ids: readonly string[]): SqlStatement;
  /** Channel name of the cross-replica wake-up of a table, or undefined without LISTEN/NOTIFY. */
  wakeChannel(table: ClaimTable): string | undefined;
  /** Sends a wake-up on `channel`; `senderId` lets the sender ignore its own notification. */
  notify(channel: string, senderId: string): SqlStatement;
  listen(channel: string): SqlStatement;
  unlistenAll(): SqlStatement;
}
