import type { DataSource, QueryRunner } from 'typeorm';
import type { ClaimComponent, QueueBoxTable } from '../interfaces/claim.interface.js';
import type { BlockedKey, ClaimAtRisk, DeadLetterDetail, RowStateRow } from '../interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../interfaces/dead-letter.interface.js';
import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../interfaces/wake-up-transport.interface.js';
import type { BacklogRow, ClaimCursor, ClaimedInboxRow, ClaimedOutboxRow, ClaimResult, CompletionRow, DeadCountRow, DatabaseErrorKind, DatabaseFacts, DriverRow, InsertedOutboxRow, RenewalRow, TableColumns } from './statement-results.js';
import type { PendingWorkRow } from '../interfaces/pending-work.interface.js';
import type { ConnectionPooling } from './connection-pooling.js';

/**
 * One SQL statement (one request to the database) with its bound values and the decoder of its
 * rows. Values are never interpolated into `sql`.
 */
export interface SqlStatement<Result = unknown> {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** Set on the hot statements: run as a prepared statement of this name, where the driver can. */
  readonly name?: string;
  /** Turns the driver's rows into the statement's typed result (statement-results.ts). */
  readonly decode: (rows: readonly DriverRow[]) => Result;
}

export type { ClaimComponent, QueueBoxTable } from '../interfaces/claim.interface.js';

/** The isolation level of QueueBox's own transactions. */
export type IsolationLevel = 'READ COMMITTED';

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

export type { ClaimCursor } from './statement-results.js';

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

/**
 * The bounds of one claim (contributing/claim-sql.md, "The claim"): at most `batchSize` rows,
 * from the heads of at most `walkKeys` keys after `cursor` and the `windowRows` oldest keyed rows.
 */
export interface ClaimRequest {
  batchSize: number;
  leaseMs: number;
  walkKeys: number;
  windowRows: number;
  cursor: ClaimCursor;
  /** The claimer's previous claim found nothing: a dialect that polls may probe before it claims. */
  afterIdle?: boolean;
}

/** The lock that serializes claims of one table (or pull source), taken first in the claim's transaction. */
export interface ClaimLock {
  /** Statements before the lock, in its transaction (PostgreSQL: the bound on the lock wait). */
  readonly setup: readonly SqlStatement<void>[];
  /** Takes the lock, in its own statement; resolves to whether it was granted. */
  readonly acquire: SqlStatement<boolean>;
}

/**
 * How a dialect runs one claim. Without `lock`, the claim statement runs alone in autocommit.
 * With it, one transaction at `isolation` on one connection runs `lock.setup`, `lock.acquire`
 * (a lock not granted rolls back and the claim is skipped as contended), then the claim, and
 * commits. `probe`, when given, runs first, without a lock: when it finds nothing due, nothing
 * else runs.
 */
export interface ClaimPlan<Row> {
  readonly probe?: SqlStatement<boolean>;
  readonly lock?: ClaimLock;
  readonly isolation: IsolationLevel;
  readonly claim: SqlStatement<ClaimResult<Row>>;
}

/** What a claim is asked to respect besides its bounds. */
export interface ClaimOptions {
  /** The claim lock was asked for (outbox `claimLock`, a pull worker's `claimLock`). A dialect may take it regardless. */
  lock: boolean;
  /**
   * The outbox claim commits without waiting for its WAL flush (`outbox.asyncMarks`; PostgreSQL,
   * ignored elsewhere). A crash can then undo the last claims: their rows are pending again and
   * claimed anew, and a message published under such a claim is published again.
   */
  asyncCommit?: boolean;
}

/**
 * The SQL of one database, and how its driver runs it. Statement builders are pure: they build
 * text from validated identifiers and put every value in `params`. Only the `StatementRunner`
 * executes statements, through `execute`. One implementation serves every database: the
 * statement catalog (statement-catalog.ts) over the database's profile.
 */
export interface SqlDialect {
  /** The registry's name of the database (`postgres`, `mssql`): a DataSource type it serves. */
  readonly type: string;
  /** The database's name for people (`PostgreSQL`, `SQL Server`), for messages. */
  readonly displayName: string;
  /** True when the database carries wake-ups to other replicas (PostgreSQL's LISTEN/NOTIFY). */
  readonly wakesReplicas: boolean;
  readonly tables: ResolvedTableNames;
  /** True when every claim takes its claim lock whatever the options say (SQL Server). */
  readonly claimLockAlways: boolean;
  /**
   * True when a pooled connection keeps the isolation level of its last transaction (SQL Server),
   * so that QueueBox's transactions must always name theirs.
   */
  readonly isolationSticks: boolean;

  /**
   * Runs one statement on `runner`'s connection and returns the driver's rows (none for a
   * statement without a result set), within `statementTimeoutMs` (a `StatementTimeoutError` past it).
   */
  execute(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]>;
  /** Runs `work` on `runner`'s connection within `statementTimeoutMs`: a transaction's BEGIN or COMMIT. */
  bounded<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T>;
  /** What a driver error means to the claim mechanism, or undefined when it means nothing special. */
  classifyError(error: unknown): DatabaseErrorKind | undefined;
  /** Ends `runner`'s connection so that the pool never hands it out again (nothing where the dialect cannot). */
  discardConnection(runner: QueryRunner): void;
  /**
   * The cross-replica wake-up of this database, or undefined when replicas rely on polling.
   * `listenUrl`: where the transport listens, instead of a connection of the DataSource's pool.
   */
  createWakeUpTransport(dataSource: DataSource, instanceId: string, listenUrl?: string): WakeUpTransport | undefined;
  /**
   * What the DataSource's connections keep from one transaction to the next (connection-pooling.ts):
   * found out by `probePooling` at start-up, or when a prepared statement went missing since.
   */
  readonly pooling: ConnectionPooling;
  /** Finds out (once, at start-up) what the DataSource's connections keep; databases without such poolers answer at once. */
  probePooling(dataSource: DataSource): Promise<ConnectionPooling>;
  /** Runs the hot statements unnamed from now on: the connections do not keep prepared statements. */
  stopPreparing(): void;
  /** A start-up check of the database (version, settings QueueBox depends on); undefined when none is needed. */
  startupProbe(): SqlStatement<DatabaseFacts> | undefined;

  /**
   * Inserts outbox rows. `wakeUp`: the statement also sends it, to be delivered with its
   * transaction's commit (only where the dialect's wake-up transport offers `withCommit`).
   */
  insertOutbox(rows: readonly OutboxInsertRow[], wakeUp?: CommitWakeUp): SqlStatement<InsertedOutboxRow[]>;
  /**
   * The outbox claim over rows of `destinations` (the instance's configured ones): rows of any other
   * destination are left pending, untouched, and cost the claim nothing.
   */
  claimOutbox(destinations: readonly string[], request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedOutboxRow>;
  outboxBacklog(): SqlStatement<BacklogRow[]>;

  /** Inserts unless (source, idempotency key) exists; resolves to the new id, or undefined for a duplicate. */
  insertInbox(row: InboxInsertRow): SqlStatement<string | undefined>;
  /** The id of the row of (source, idempotency key), or undefined. */
  findInbox(source: string, idempotencyKey: string): SqlStatement<string | undefined>;
  /** The relay's claim over its routed sources: always after the relay claim lock. */
  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow>;
  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow>;
  inboxBacklog(): SqlStatement<BacklogRow[]>;

  /** Extends one lease; the ids changed (one, or none when the claim was lost). */
  renew(table: QueueBoxTable, row: FencedRow, leaseMs: number): SqlStatement<string[]>;
  /** Renews a group of claims; rows locked by another transaction are skipped, never waited for. */
  renewMany(table: QueueBoxTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement<RenewalRow[]>;
  /**
   * Finishes rows, each fenced by its own token; with `handOffLeaseMs`, claims the next row of
   * each finished key in the same statement.
   */
  /** `asyncCommit`: the autocommit marks commit without waiting for their WAL flush (PostgreSQL; ignored by SQL Server). */
  completeMany(kind: 'outbox', rows: readonly FencedRow[], handOffLeaseMs?: number, asyncCommit?: boolean): SqlStatement<CompletionRow<ClaimedOutboxRow>[]>;
  completeMany(kind: 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedInboxRow>[]>;
  completeMany(kind: ClaimComponent, rows: readonly FencedRow[], handOffLeaseMs?: number, asyncCommit?: boolean): SqlStatement<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]>;
  retry(table: QueueBoxTable, row: FencedRow, delayMs: number, error: string): SqlStatement<string[]>;
  deadLetter(table: QueueBoxTable, row: FencedRow, error: string): SqlStatement<string[]>;
  /** Expired claims back to pending; for the inbox, only those of `sources` (the relay's). */
  reclaimExpired(table: QueueBoxTable, limit: number, sources?: readonly string[]): SqlStatement<string[]>;

  /** Dead rows of the outbox matching the page's filter, oldest first, after its id. */
  listDeadOutbox(page: DeadRowPage): SqlStatement<DeadOutboxMessage[]>;
  listDeadInbox(page: DeadRowPage): SqlStatement<DeadInboxMessage[]>;
  /** One dead row in full (the payload only `withPayload`); undefined when it is not dead. */
  inspectDead(table: QueueBoxTable, id: string, withPayload: boolean): SqlStatement<DeadLetterDetail | undefined>;
  /** Deletes up to `limit` rows finished (`done`) or dead longer than `olderThanMs` ago. */
  purgeFinished(table: QueueBoxTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement<string[]>;
  /** Dead rows per destination (outbox) or source (inbox). */
  deadCounts(table: QueueBoxTable): SqlStatement<DeadCountRow[]>;
  /** Dead rows back to pending; the ids that were dead. */
  replayDead(table: QueueBoxTable, ids: readonly string[]): SqlStatement<string[]>;
  /** One chunk of a replay by filter: the page's dead rows back to pending, in one statement; their ids. */
  replayDeadMatching(table: QueueBoxTable, page: DeadRowPage): SqlStatement<string[]>;
  /** Deletes dead rows; the ids that were dead. */
  discardDead(table: QueueBoxTable, ids: readonly string[]): SqlStatement<string[]>;
  /** One chunk of a discard by filter: deletes the page's dead rows, in one statement; their ids. */
  discardDeadMatching(table: QueueBoxTable, page: DeadRowPage): SqlStatement<string[]>;
  /** The state of each listed row that exists, in id order. */
  rowStates(table: QueueBoxTable, ids: readonly string[]): SqlStatement<RowStateRow[]>;
  /** Keys whose head row is retrying or dead, oldest heads first, at most `limit`. */
  blockedKeys(table: QueueBoxTable, limit: number): SqlStatement<BlockedKey[]>;
  /** Rows in flight whose lease ends within `withinMs` (or ended), soonest first, at most `limit`. */
  claimsAtRisk(table: QueueBoxTable, withinMs: number, limit: number): SqlStatement<ClaimAtRisk[]>;

  /** The database clock, now (what leases and due times are compared with). */
  databaseNow(): SqlStatement<Date>;
  /** The unfinished rows of both tables per stream, by the database clock (a test's drain). */
  pendingWork(): SqlStatement<PendingWorkRow[]>;
  /** Whether the schema `schema` exists. */
  schemaExists(schema: string): SqlStatement<boolean>;
  /** QueueBox's two tables as the statements find them, and their columns (the start-up check). */
  tableColumns(): SqlStatement<TableColumns>;
  /**
   * Drops QueueBox's tables and their schema (`tables.schema`, which must be set): only for a
   * schema QueueBox made for itself (a conformance run), never an application's.
   */
  dropSchema(): SqlStatement<void>;
}
