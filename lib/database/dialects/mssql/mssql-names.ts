import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { qualifiedTable } from '../table-names.js';

/**
 * Quotes a validated identifier (`IDENTIFIER` in options) in SQL Server's brackets. Validation is
 * what keeps anything else out; doubling `]` only makes the quoting total.
 */
export function quote(identifier: string): string {
  return `[${identifier.replace(/]/g, ']]')}]`;
}

/** The quoted, schema-qualified name of a QueueBox table. */
export const qualified = (tables: ResolvedTableNames, table: QueueBoxTable): string =>
  qualifiedTable(tables, table, quote);

/**
 * The database clock: UTC, a runtime constant of the statement (every row of a batch gets the same
 * lease). Never `GETDATE()` (local time) or `SYSDATETIME()` (local time too).
 */
export const DB_NOW = 'SYSUTCDATETIME()';

/**
 * The collation of the key columns (`source`, `idempotency_key`, `ordering_key`, `destination`):
 * binary, so that `abc` and `ABC` are two keys, whatever the database's collation. Values read
 * from OPENJSON carry the database collation and take this one explicitly before a comparison
 * with a key column (error 468 otherwise).
 */
export const KEY_COLLATION = 'Latin1_General_100_BIN2';

/** The type of a key column, and of every variable or table-variable column that holds a key. */
export const KEY_TYPE = `nvarchar(200) COLLATE ${KEY_COLLATION}`;

/**
 * A GUID as the driver should see it: tedious reads `uniqueidentifier` upper-case, while QueueBox
 * compares ids and tokens as the lower-case strings it generated.
 */
export const guidOut = (expression: string): string => `LOWER(CONVERT(char(36), ${expression}))`;

/**
 * A `datetime2` UTC time as an absolute instant: TypeORM forces `useUTC: false`, so tedious would
 * read a bare `datetime2` as local time; a `datetimeoffset` is read right in every setting.
 */
export const timeOut = (expression: string): string => `TODATETIMEOFFSET(${expression}, '+00:00')`;

/** `sp_getapplock` keeps 255 characters of a resource name: a claim lock's longer name is hashed (claim-lock-names.ts). */
export const MAX_RESOURCE_LENGTH = 255;

/**
 * The keys of a JSON array parameter as a one-column subquery, for `x.column IN (…)`: default-schema
 * OPENJSON (sqlfluff 1.4.5 rejects `OPENJSON … WITH (…)`), each value cast to a key column's type
 * and collation. Lists travel as one `nvarchar(max)` JSON text: mssql would send a JS array as
 * `"a,b"`, and TypeORM has no table-valued parameters.
 */
export const jsonKeys = (parameter: string, options: { distinct?: boolean } = {}): string =>
  `SELECT ${options.distinct ? 'DISTINCT ' : ''}CAST(j.value AS nvarchar(200)) COLLATE ${KEY_COLLATION} FROM OPENJSON(${parameter}) AS j`;

/** The ids of a JSON array parameter as a one-column subquery (each value cast to `bigint`). */
export const jsonIds = (parameter: string): string => `SELECT CAST(j.value AS bigint) FROM OPENJSON(${parameter}) AS j`;

/**
 * The hints of a row a statement reads in order to change it (a claim's candidates, a hand-off, a
 * reclaim, the rows a group renewal locks). UPDLOCK: read and write are one step, the update lock
 * is held to the end of the transaction (the FOR UPDATE of PostgreSQL). READPAST: a row another
 * transaction holds is skipped, never waited for (SKIP LOCKED). ROWLOCK: row locks, so that others'
 * READPAST skips exactly these rows. READCOMMITTEDLOCK: a locking read of the current committed
 * row also under READ_COMMITTED_SNAPSHOT, where READPAST needs it.
 */
export const UPDATE_HINTS = 'WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)';

/**
 * The hints of a reader that must not wait and may miss a row that another transaction holds right
 * now: the walk over keys, the window, the probes, the gauges, a successor lookup that is
 * re-checked under {@link UPDATE_HINTS}.
 */
export const SKIP_HINTS = 'WITH (READPAST, READCOMMITTEDLOCK)';

/**
 * First in every request that reads with READPAST. A pooled connection keeps the isolation level
 * its previous borrower's transaction set, and READPAST fails under SNAPSHOT and SERIALIZABLE
 * (error 650). Inside `sp_executesql` (every TypeORM query) the setting reverts when the call
 * returns.
 */
export const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;';

/**
 * Opens a transaction only when the caller has none (autocommit), for a request whose statements
 * must commit together; {@link OWN_TRANSACTION_COMMIT} closes it, so BEGIN and COMMIT balance
 * within the request either way (`sp_executesql` fails with error 266 otherwise). XACT_ABORT goes
 * with it: an error or a client's attention then rolls the whole transaction back instead of
 * leaving it open on a pooled connection. In a caller's transaction neither is touched: that
 * transaction makes the statements atomic, and an error is left for its owner to roll back
 * rather than dooming it from here.
 */
export const OWN_TRANSACTION_BEGIN = `DECLARE @own_transaction bit = 0;
IF @@TRANCOUNT = 0
BEGIN
  SET XACT_ABORT ON;
  BEGIN TRANSACTION;
  SET @own_transaction = 1;
END;`;

/** Commits the transaction {@link OWN_TRANSACTION_BEGIN} opened, if it opened one. */
export const OWN_TRANSACTION_COMMIT = 'IF @own_transaction = 1 COMMIT TRANSACTION;';
