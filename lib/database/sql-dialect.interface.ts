import type { DataSource } from 'typeorm';
import type { StatementConnection } from './statement-connection.js';
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
  afterIdle?: boolean;
}

/** The lock that serializes claims of one table (or pull source), taken first in the claim's transaction. */
export interface ClaimLock {
  readonly setup: readonly SqlStatement<void>[];
  /** Takes the lock, in its own statement; resolves to whether it was granted. */
  readonly acquire: SqlStatement<boolean>;
}

/**
 * How a dialect runs one claim. Without `lock`, the claim runs alone in autocommit. With it, one
 * transaction at `isolation` runs `lock.setup`, `lock.acquire` (not granted: rollback, skipped as
 * contended), then the claim. `probe`, when given, runs first without a lock; nothing due ends it.
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
  /** The outbox claim skips the WAL flush (`outbox.asyncMarks`; PostgreSQL): a crash re-publishes, never loses. */
  asyncCommit?: boolean;
}

/**
 * The SQL of one database, and how its driver runs it: the statement catalog
 * (lib/database/dialects/statement-catalog.ts) over the database's profile. Builders are pure and
 * put every value in `params`; only the `StatementRunner` executes. The statement methods are those
 * of statements.ts, whose docs they carry.
 */
export interface SqlDialect extends StatementMethods<Statements> {
  readonly type: string;
  readonly displayName: string;
  readonly wakesReplicas: boolean;
  readonly tables: ResolvedTableNames;
  readonly claimLockAlways: boolean;
  /** See {@link DialectProfile.isolationSticks}. */
  readonly isolationSticks: boolean;

  /** Runs one statement within `statementTimeoutMs` (else `StatementTimeoutError`); the driver's rows. */
  execute(runner: StatementConnection, statement: SqlStatement): Promise<DriverRow[]>;
  /** Runs `work` on `runner`'s connection within `statementTimeoutMs`: a transaction's BEGIN or COMMIT. */
  bounded<T>(runner: StatementConnection, work: () => Promise<T>): Promise<T>;
  classifyError(error: unknown): DatabaseErrorKind | undefined;
  discardConnection(runner: StatementConnection): void;
  /** A connection for one autocommit statement: the dialect's own where it has one, else TypeORM's query runner. */
  autocommitConnection(dataSource: DataSource): StatementConnection;
  /** The cross-replica wake-up transport, or undefined when replicas poll. */
  createWakeUpTransport(dataSource: DataSource, instanceId: string, listenUrl?: string): WakeUpTransport | undefined;
  /** What the connections keep across transactions (connection-pooling.ts), found by `probePooling`. */
  readonly pooling: ConnectionPooling;
  probePooling(dataSource: DataSource): Promise<ConnectionPooling>;
  stopPreparing(): void;
  startupProbe(): SqlStatement<DatabaseFacts> | undefined;

  /** Inserts outbox rows; `wakeUp` is sent with the commit (where the transport offers `withCommit`). */
  insertOutbox(rows: readonly OutboxInsertRow[], wakeUp?: CommitWakeUp): SqlStatement<InsertedOutboxRow[]>;
  /** The outbox claim over rows of `destinations`; other destinations' rows cost it nothing. */
  claimOutbox(
    destinations: readonly string[],
    request: ClaimRequest,
    options: ClaimOptions,
  ): ClaimPlan<ClaimedOutboxRow>;
  /** The relay's claim over its routed sources: always after the relay claim lock. */
  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow>;
  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow>;
  /** Drops QueueBox's tables and their schema (`tables.schema`, which must be set): a conformance run's only. */
  dropSchema(): SqlStatement<void>;
}
