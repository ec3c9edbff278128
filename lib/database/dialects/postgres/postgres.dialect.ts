import type { DialectProfile } from '../dialect-profile.interface.js';
import * as claimLockSql from './claim-lock.sql.js';
import { discardPostgresConnection } from './discard-connection.js';
import { PostgresNotifyTransport } from './notify-transport.js';
import { guardPoolErrors } from './pool-error-guard.js';
import { classifyPostgresError } from './postgres-errors.js';
import { executeOnPostgres } from './postgres-executor.js';
import { postgresEncoders } from './postgres-parameters.js';
import { postgresTexts } from './postgres-statements.js';
import { PooledStatementConnection } from './pooled-statement-connection.js';
import { postgresSchemaSteps } from './schema.sql.js';
import { probePostgresPooling } from './session-pooling-probe.js';

/** The longest interval a statement adds to the clock: `$n::integer * interval '1 millisecond'` takes an int (24.8 days). */
const MAX_INTEGER = 2_147_483_647;

/** The longest retention age: a longer interval overflows PostgreSQL's interval arithmetic. */
const HUNDRED_YEARS_MS = 3_153_600_000_000;

/**
 * PostgreSQL: `$n` placeholders, `statement_timestamp()` as the clock, SKIP LOCKED claims,
 * advisory claim locks where asked for (always for the relay), LISTEN/NOTIFY wake-ups (with the
 * commit of the enqueue that opens a window), named prepared statements for the hot statements.
 */
export const postgresDialect: DialectProfile<'postgres'> = {
  name: 'postgres',
  displayName: 'PostgreSQL',
  texts: postgresTexts,
  encode: postgresEncoders,
  claimLock: {
    taken: 'on-request',
    owner: 'transaction',
    setup: [claimLockSql.claimLockTimeout()],
    acquire: claimLockSql.claimLock(),
    granted: (rows) => rows.length === 1 && rows[0].granted === true,
    // hashtext() takes a name of any length.
  },
  isolationSticks: false,
  prepares: true,
  asyncCommit: true,
  wakeUp: {
    transport: (dataSource, tables, instanceId, deadline, listenUrl) =>
      new PostgresNotifyTransport(dataSource, tables, instanceId, deadline, listenUrl),
  },
  limits: {
    identifierLength: 63,
    // PostgreSQL keeps 63 characters of a name and cuts the rest: at 48, the index and constraint
    // names (the table name and a suffix) stay distinct after the cut.
    tableNameLength: 48,
    intervalMs: MAX_INTEGER,
    ageMs: HUNDRED_YEARS_MS,
    // The key columns are text; the two-key indexes, (destination, ordering_key, id), take
    // entries of up to 2,704 bytes, which two keys of 200 characters (4 bytes each at most) keep.
    keyLength: 200,
  },
  url: {
    schemes: ['postgres', 'postgresql'],
    needsDatabase: false,
    // Handed to node-postgres as it is, so that `?sslmode=…` and the like work.
    dataSourceOptions: (text, _url, client) => ({
      type: 'postgres',
      url: text,
      applicationName: client.applicationName,
      extra: { max: client.poolSize },
    }),
  },
  schema: {
    steps: postgresSchemaSteps,
    defaultMigrations: 'QueueBoxPostgresMigrations',
    // DDL is transactional: the script is one transaction.
    script: {
      begin: ['BEGIN;'],
      end: ['COMMIT;'],
      terminate: (statement) => `${statement};`,
      client: 'psql -v ON_ERROR_STOP=1 -f <file>',
    },
  },
  execute: executeOnPostgres,
  autocommitConnection: (dataSource) => {
    const pool = PooledStatementConnection.poolOf(dataSource);
    return pool && new PooledStatementConnection(pool);
  },
  discardConnection: discardPostgresConnection,
  classifyError: classifyPostgresError,
  probePooling: probePostgresPooling,
  prepareDataSource: guardPoolErrors,
};
