import type { DataSource } from 'typeorm';
import { InvalidQueueBoxOptionsError } from '../../../shared/errors/invalid-queuebox-options.error.js';
import type { DialectProfile } from '../dialect-profile.interface.js';
import { runQuery } from '../run-query.js';
import type { DatabaseFacts, DriverRow } from '../../statement-results.js';
import * as claimLockSql from './claim-lock.sql.js';
import { classifyMssqlError } from './mssql-errors.js';
import { MAX_RESOURCE_LENGTH } from './mssql-names.js';
import { mssqlCompatibilityTooLow, mssqlDatabaseMode, mssqlRequestTimeoutTooShort } from './mssql.messages.js';
import { mssqlEncoders } from './mssql-parameters.js';
import { mssqlSchemaSteps } from './mssql-schema-steps.js';
import { mssqlTexts } from './mssql-statements.js';
import { startupProbe } from './startup-probe.sql.js';

/** OPENJSON, which every list parameter is read with, needs compatibility level 130 (SQL Server 2016). */
const MIN_COMPATIBILITY_LEVEL = 130;

/** mssql's default `requestTimeout`, and QueueBox's minimum: above the claim lock's 10 s wait plus the claim. */
const MIN_REQUEST_TIMEOUT_MS = 15_000;

/** DATEADD(millisecond, …) takes an int (24.8 days). */
const MAX_INT = 2_147_483_647;

/** Retention ages reach 100 years (the purge splits one into whole minutes and milliseconds for DATEADD). */
const HUNDRED_YEARS_MS = 3_153_600_000_000;

function decodeFacts(rows: readonly DriverRow[]): DatabaseFacts {
  const [row] = rows;
  const level = Number(row?.compatibility_level);
  const rcsi = row?.read_committed_snapshot === true || row?.read_committed_snapshot === 1;
  return {
    problems: level >= MIN_COMPATIBILITY_LEVEL ? [] : [mssqlCompatibilityTooLow(level, MIN_COMPATIBILITY_LEVEL)],
    notes: [mssqlDatabaseMode(level, rcsi)],
  };
}

/**
 * A request the driver times out is cancelled (an attention) and its connection goes back to the
 * pool without a reset; a claim waits up to 10 s for its lock. The timeout must leave room for
 * both (0 is no timeout).
 */
function checkRequestTimeout(dataSource: DataSource): void {
  const timeout = (dataSource.options as { requestTimeout?: number }).requestTimeout;
  if (timeout === undefined || timeout === 0 || timeout >= MIN_REQUEST_TIMEOUT_MS) return;
  throw new InvalidQueueBoxOptionsError(
    'dataSource.requestTimeout',
    mssqlRequestTimeoutTooShort(timeout, MIN_REQUEST_TIMEOUT_MS),
  );
}

/** A URL flag: `true` or `1` is on, anything else given is off. */
function flag(url: URL, name: string, fallback: boolean): boolean {
  const given = url.searchParams.get(name);
  return given === null ? fallback : given === 'true' || given === '1';
}

/**
 * SQL Server through TypeORM's `mssql` driver (docs/guides/sql-server.md): `@n` placeholders with
 * typed parameters of constant length, `SYSUTCDATETIME()` as the only clock, a transaction-owned
 * application lock on every claim, `UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK` on claim
 * candidates, `OUTPUT` rows as the only count of a write, lists as JSON read with OPENJSON. No
 * cross-replica wake-up: replicas poll, and an idle poll costs one lock-free probe.
 */
export const mssqlDialect: DialectProfile<'mssql'> = {
  name: 'mssql',
  displayName: 'SQL Server',
  texts: mssqlTexts,
  encode: mssqlEncoders,
  claimLock: {
    // The claim's anti-join (B) relies on it (claim.sql.ts): the `claimLock` options change nothing here.
    taken: 'always',
    owner: 'transaction',
    setup: [],
    acquire: claimLockSql.claimLock(),
    /** `sp_getapplock`'s return code: 0 or 1 granted, negative not (timeout, deadlock victim, …). */
    granted: (rows) => rows.length === 1 && Number(rows[0].granted) >= 0,
    maxNameLength: MAX_RESOURCE_LENGTH,
  },
  isolationSticks: true,
  prepares: false,
  asyncCommit: false,
  // None: SQL Server has no LISTEN/NOTIFY. Replicas find other replicas' rows by polling (with a probe).
  wakeUp: undefined,
  limits: {
    identifierLength: 128,
    // sysname is 128 characters; the longest index or constraint suffix (`_unkeyed_pending_ix`) takes 19.
    tableNameLength: 109,
    intervalMs: MAX_INT,
    ageMs: HUNDRED_YEARS_MS,
    // The key columns are nvarchar(200): SQL Server's index keys are at most 1,700 bytes, and
    // (source, ordering_key, id) holds two of them.
    keyLength: 200,
  },
  url: {
    schemes: ['mssql', 'sqlserver'],
    needsDatabase: true,
    dataSourceOptions: (_text, url, client) => ({
      type: 'mssql',
      host: url.hostname,
      port: url.port ? Number(url.port) : 1433,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
      pool: { max: client.poolSize },
      options: {
        encrypt: flag(url, 'encrypt', true),
        trustServerCertificate: flag(url, 'trustServerCertificate', false),
        appName: client.applicationName,
      },
    }),
  },
  schema: {
    steps: mssqlSchemaSteps,
    defaultMigrations: 'QueueBoxSqlServerMigrations',
    // `CREATE SCHEMA` must open its batch: every statement is a batch of its own (GO, which sqlcmd and SSMS understand).
    script: { begin: [], end: [], terminate: (statement) => `${statement}\nGO`, client: 'sqlcmd -b -i <file>' },
  },
  execute: runQuery,
  classifyError: classifyMssqlError,
  startupProbe: { text: startupProbe(), decode: decodeFacts },
  prepareDataSource: checkRequestTimeout,
};
