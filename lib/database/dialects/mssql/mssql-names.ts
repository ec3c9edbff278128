import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { qualifiedTable } from '../table-names.js';

/** Quotes a validated identifier in brackets; doubling `]` only makes the quoting total. */
export function quote(identifier: string): string {
  return `[${identifier.replace(/]/g, ']]')}]`;
}

export const qualified = (tables: ResolvedTableNames, table: QueueBoxTable): string =>
  qualifiedTable(tables, table, quote);

/**
 * The database clock: UTC, a runtime constant of the statement (every row of a batch gets the same
 * lease). Never `GETDATE()` (local time) or `SYSDATETIME()` (local time too).
 */
export const DB_NOW = 'SYSUTCDATETIME()';

/**
 * Binary collation of the key columns, so `abc` and `ABC` are two keys. OPENJSON values take it
 * explicitly before a comparison with a key column (error 468 otherwise).
 */
export const KEY_COLLATION = 'Latin1_General_100_BIN2';

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
 * The keys of a JSON array parameter as a one-column subquery, cast to the key type and collation.
 * Default-schema OPENJSON: sqlfluff 1.4.5 rejects `OPENJSON … WITH`. JSON text because mssql sends a
 * JS array as `"a,b"`, and TypeORM has no table-valued parameters.
 */
export const jsonKeys = (parameter: string, options: { distinct?: boolean } = {}): string =>
  `SELECT ${options.distinct ? 'DISTINCT ' : ''}CAST(j.value AS nvarchar(200)) COLLATE ${KEY_COLLATION} FROM OPENJSON(${parameter}) AS j`;

export const jsonIds = (parameter: string): string => `SELECT CAST(j.value AS bigint) FROM OPENJSON(${parameter}) AS j`;

/**
 * Hints of a row read to be changed. UPDLOCK: held to the end (FOR UPDATE). READPAST: skip held rows
 * (SKIP LOCKED). ROWLOCK: so others' READPAST skips exactly these rows. READCOMMITTEDLOCK: READPAST
 * needs a locking read under READ_COMMITTED_SNAPSHOT.
 */
export const UPDATE_HINTS = 'WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)';

/** Hints of a reader that must not wait and may miss a held row (walk, window, probes, gauges). */
export const SKIP_HINTS = 'WITH (READPAST, READCOMMITTEDLOCK)';

/**
 * First in every request that reads with READPAST: a pooled connection keeps its previous borrower's
 * isolation level, and READPAST fails under SNAPSHOT and SERIALIZABLE (error 650).
 */
export const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;';

/**
 * Opens a transaction only in autocommit, for statements that must commit together;
 * {@link OWN_TRANSACTION_COMMIT} closes it, so BEGIN and COMMIT balance within the request
 * (`sp_executesql` error 266). XACT_ABORT: an error or attention rolls it back instead of leaving it
 * open on a pooled connection. A caller's transaction is left to its owner.
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
