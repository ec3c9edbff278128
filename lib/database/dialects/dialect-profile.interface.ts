import type { DataSource, DataSourceOptions } from 'typeorm';
import type { WakeUpTransport } from '../../shared/interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import type { DiscardConnection } from './statement-deadline.js';
import type { DialectTexts } from './dialect-texts.interface.js';
import type { SchemaStep } from './schema-step.interface.js';
import type { ParameterEncoders } from '../parameter-encoders.interface.js';
import type { SqlStatement } from '../sql-dialect.interface.js';
import type { DatabaseErrorKind, DatabaseFacts, DriverRow } from '../statement-results.js';
import type { ConnectionPooling } from '../connection-pooling.js';
import type { StatementConnection } from '../statement-connection.js';

/*
 * What one database is to QueueBox: its SQL texts, how it binds values, what it can do. Nothing
 * above lib/database/dialects/ reads a database's name to decide anything: it reads the profile.
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
   * The claim's transaction holds it, so commit, rollback or session end releases it, and a client
   * timeout cannot leave it held on a pooled connection.
   */
  owner: 'transaction';
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
  identifierLength: number;
  /** The longest table name: index and constraint names add a suffix to it. */
  tableNameLength: number;
  intervalMs: number;
  ageMs: number;
  keyLength: number;
}

export interface UrlClient {
  applicationName: string;
  poolSize: number;
}

export interface UrlProfile {
  schemes: readonly string[];
  /** A URL must name its database (SQL Server: a login's default database is seldom QueueBox's). */
  needsDatabase: boolean;
  dataSourceOptions(text: string, url: URL, client: UrlClient): DataSourceOptions;
}

/** How a DBA script of the schema is laid out for the database's client tool. */
export interface SchemaScriptLayout {
  begin: readonly string[];
  end: readonly string[];
  terminate(statement: string): string;
  client: string;
}

/** One database: its SQL, its parameter encoders, its capabilities. `Name` is the DataSource type it serves. */
export interface DialectProfile<Name extends string = string> {
  readonly name: Name;
  readonly displayName: string;

  /** Every statement's text as a function of the table names, by the statement's key. */
  readonly texts: DialectTexts;
  readonly encode: ParameterEncoders;

  readonly claimLock: ClaimLockProfile;
  /**
   * A pooled connection keeps the isolation level of its last transaction (SQL Server), so that
   * QueueBox's transactions must always name theirs.
   */
  readonly isolationSticks: boolean;
  /** The driver prepares named statements (node-postgres): the hot ones, unless `preparedStatements` is off. */
  readonly prepares: boolean;
  /**
   * A statement can commit its own autocommit transaction without the WAL flush (PostgreSQL): the
   * outbox's completion then takes `asyncMarks` as one more parameter. False: the option is ignored.
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

  execute(runner: StatementConnection, statement: SqlStatement): Promise<DriverRow[]>;
  /** A connection for one autocommit statement without TypeORM's query runner; undefined: the runner is used. */
  autocommitConnection?(dataSource: DataSource): StatementConnection | undefined;
  /**
   * Ends a connection at once, without a round trip, so its pending statement fails and the pool
   * drops it (past `statementTimeoutMs`, or refused as read-only). Undefined: the driver bounds its
   * requests itself (SQL Server's `requestTimeout`).
   */
  discardConnection?(runner: StatementConnection): void;
  classifyError(error: unknown): DatabaseErrorKind | undefined;
  /** Whether connections keep their session and prepared statements across transactions. Undefined: they do. */
  probePooling?(dataSource: DataSource, deadline: StatementDeadline): Promise<ConnectionPooling>;
  readonly startupProbe?: { text: string; decode(rows: readonly DriverRow[]): DatabaseFacts };
  /** Readies the DataSource when the dialect is resolved; refuses options it cannot work with. */
  prepareDataSource?(dataSource: DataSource): void;
}
