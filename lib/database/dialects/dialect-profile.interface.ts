import type { DataSource, DataSourceOptions, QueryRunner } from 'typeorm';
import type { WakeUpTransport } from '../../shared/interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import type { DiscardConnection } from './statement-deadline.js';
import type { DialectTexts } from './dialect-texts.interface.js';
import type { SchemaStep } from './schema-step.interface.js';
import type { ParameterEncoders } from '../parameter-encoders.interface.js';
import type { SqlStatement } from '../sql-dialect.interface.js';
import type { DatabaseErrorKind, DatabaseFacts, DriverRow } from '../statement-results.js';
import type { ConnectionPooling } from '../connection-pooling.js';

/*
 * What one database is to QueueBox: its SQL texts, how it binds values, and what it can and
 * cannot do. The statement catalog (statement-catalog.ts) builds every statement from a profile;
 * the registry (dialect-registry.ts) maps a DataSource type or a URL scheme to one. Nothing above
 * lib/database/dialects/ reads a database's name to decide anything: it reads the profile.
 */

/**
 * The lock that serializes claims of a table (or of a pull source): docs/concepts/claims-and-leases.md,
 * "Locks". The relay takes it on every database.
 */
export interface ClaimLockProfile {
  /**
   * `always`: every claim takes it, whatever the options say (SQL Server, whose claim relies on
   * it). `on-request`: outbox and pull claims take it where their `claimLock` option asks.
   */
  taken: 'always' | 'on-request';
  /**
   * Who holds a granted lock: the claim's transaction, so that its commit, its rollback, or the
   * end of the session releases it, and a client timeout cannot leave it held on a pooled
   * connection. A session-owned lock would need a release the claim runner does not run.
   */
  owner: 'transaction';
  /** Statements before the lock, in its transaction (the bound on the wait). */
  setup: readonly string[];
  /** Takes the lock named by its one parameter; its rows say whether it was granted. */
  acquire: string;
  granted(rows: readonly DriverRow[]): boolean;
  /** The longest lock name the database keeps whole; a longer one is hashed. Undefined: any length. */
  maxNameLength?: number;
}

/** The client-side deadline of statements (`statementTimeoutMs`), and how a connection past it is discarded. */
export interface StatementDeadline {
  statementTimeoutMs: number;
  discard?: DiscardConnection;
}

/** Cross-replica wake-ups, where the database can carry them. */
export interface WakeUpProfile {
  /** `listenUrl`: listen on a connection of its own to this URL, not on one of the DataSource's pool. */
  transport(
    dataSource: DataSource,
    tables: ResolvedTableNames,
    instanceId: string,
    deadline: StatementDeadline,
    listenUrl?: string,
  ): WakeUpTransport;
}

/**
 * Bounds of the values the database takes. Options are validated before the DataSource is known,
 * so they use the strictest bound of the registered dialects (`strictestLimits`, dialect-registry.ts).
 */
export interface DialectLimits {
  /** The longest identifier (a schema name) the database keeps. */
  identifierLength: number;
  /** The longest table name: index and constraint names add a suffix to it. */
  tableNameLength: number;
  /** The longest interval, in milliseconds, a statement adds to the clock (a lease, a delay, a back-off). */
  intervalMs: number;
  /** The longest age, in milliseconds, a retention statement subtracts from the clock. */
  ageMs: number;
  /** The longest key (source, destination, ordering or idempotency key), in characters. */
  keyLength: number;
}

/** The client a URL opens a DataSource for. */
export interface UrlClient {
  /** What the database's session list shows. */
  applicationName: string;
  /** Connections of the DataSource's pool at most. */
  poolSize: number;
}

/** Connection URLs of the database. */
export interface UrlProfile {
  /** Schemes of its URLs, without the colon. */
  schemes: readonly string[];
  /** A URL must name its database (SQL Server: a login's default database is seldom QueueBox's). */
  needsDatabase: boolean;
  /** TypeORM's options for `text` (parsed: `url`), one of `schemes`. */
  dataSourceOptions(text: string, url: URL, client: UrlClient): DataSourceOptions;
}

/** How a DBA script of the schema is laid out for the database's client tool. */
export interface SchemaScriptLayout {
  begin: readonly string[];
  end: readonly string[];
  terminate(statement: string): string;
  /** The command line that runs the script. */
  client: string;
}

/**
 * One database: its SQL, its parameter encoders, and its capabilities. `Name` is the TypeORM
 * DataSource type it serves.
 */
export interface DialectProfile<Name extends string = string> {
  readonly name: Name;
  /** The database's name in messages and reports: 'PostgreSQL', 'SQL Server'. */
  readonly displayName: string;

  /**
   * Its SQL: every statement's text as a function of the table names, by the statement's key
   * (the catalog builds them once). An idle probe, a one-row completion, inserts that carry a
   * wake-up with their commit: the dialect has them where its texts include them.
   */
  readonly texts: DialectTexts;
  readonly encode: ParameterEncoders;

  readonly claimLock: ClaimLockProfile;
  /**
   * A pooled connection keeps the isolation level of its last transaction (SQL Server), so that
   * QueueBox's transactions must always name theirs.
   */
  readonly isolationSticks: boolean;
  /**
   * The driver runs a statement with a name as a prepared statement (node-postgres): the hot
   * statements (claims, completions, group renewals) get one, unless `preparedStatements` is off.
   */
  readonly prepares: boolean;
  /**
   * A statement can let its own autocommit transaction commit without waiting for its WAL flush
   * (PostgreSQL: `synchronous_commit` set for the transaction inside the statement): the outbox's
   * completion then takes one more parameter, the outbox's `asyncMarks`. False: marks always
   * commit durably, and the option is ignored.
   */
  readonly asyncCommit: boolean;
  /** Undefined: replicas rely on polling. */
  readonly wakeUp?: WakeUpProfile;
  readonly limits: DialectLimits;
  readonly url: UrlProfile;
  readonly schema: {
    steps(tables: ResolvedTableNames): SchemaStep[];
    script: SchemaScriptLayout;
    /** The constant of `queuebox/migrations` that holds the steps' migrations for the default table names, for messages. */
    defaultMigrations: string;
  };

  /** Runs one statement on `runner`'s connection; the driver's rows (none without a result set). */
  execute(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]>;
  /**
   * Ends a runner's connection at once, without a round trip, so that its pending statement fails
   * and the pool drops it: what a statement past `statementTimeoutMs` does, and a session whose
   * server refused a write as read-only. Undefined: the driver bounds its requests itself (SQL
   * Server's `requestTimeout`), and QueueBox sets no deadline.
   */
  discardConnection?(runner: QueryRunner): void;
  /** What a driver error means to the claim mechanism, or undefined. */
  classifyError(error: unknown): DatabaseErrorKind | undefined;
  /**
   * Finds out whether the DataSource's connections keep their server session, and their prepared
   * statements, across transactions (a pooler in transaction mode does not). Undefined: they do.
   */
  probePooling?(dataSource: DataSource, deadline: StatementDeadline): Promise<ConnectionPooling>;
  /** A start-up check of the database (version, settings QueueBox depends on). */
  readonly startupProbe?: { text: string; decode(rows: readonly DriverRow[]): DatabaseFacts };
  /**
   * Readies the application's DataSource for QueueBox when the dialect is resolved, and refuses
   * options QueueBox cannot work with (an `InvalidQueueBoxOptionsError`).
   */
  prepareDataSource?(dataSource: DataSource): void;
}
