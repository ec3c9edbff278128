import type { DataSource, QueryRunner } from 'typeorm';
import type { ResolvedTableNames } from '../shared/interfaces/table-names.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../shared/interfaces/wake-up-transport.interface.js';
import type { ConnectionPooling } from './connection-pooling.js';
import type { OutboxInsertRow } from './statement-arguments.js';
import type { SqlStatement, StatementMethods } from './statement-definition.js';
import type {
  ClaimCursor,
  ClaimedInboxRow,
  ClaimedOutboxRow,
  ClaimResult,
  DatabaseErrorKind,
  DatabaseFacts,
  DriverRow,
  InsertedOutboxRow,
} from './statement-results.js';
import type { Statements } from './statements.js';

export type { ClaimComponent, QueueBoxTable } from '../shared/interfaces/claim.interface.js';

/** The isolation level of QueueBox's own transactions. */
export type IsolationLevel = 'READ COMMITTED';

export type { ClaimCursor } from './statement-results.js';
export type { DeadRowFilter, DeadRowPage, FencedRow, InboxInsertRow, OutboxInsertRow } from './statement-arguments.js';
export type { SqlStatement } from './statement-definition.js';

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
 * statement catalog (lib/database/dialects/statement-catalog.ts) over the database's profile.
 *
 * Its statement methods (`renew`, `completeMany`, `listDeadOutbox`, …) are those of the
 * definitions in statements.ts, whose docs they carry; the few composed statements (the outbox
 * insert, the claims, the schema's drop) are declared here.
 */
export interface SqlDialect extends StatementMethods<Statements> {
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
  claimOutbox(
    destinations: readonly string[],
    request: ClaimRequest,
    options: ClaimOptions,
  ): ClaimPlan<ClaimedOutboxRow>;
  /** The relay's claim over its routed sources: always after the relay claim lock. */
  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow>;
  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow>;
  /**
   * Drops QueueBox's tables and their schema (`tables.schema`, which must be set): only for a
   * schema QueueBox made for itself (a conformance run), never an application's.
   */
  dropSchema(): SqlStatement<void>;
}
