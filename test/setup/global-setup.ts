import type { TestProject } from 'vitest/node';
import { MssqlTestDatabase } from '../fixtures/mssql-test-database.js';
import type { TestDatabaseSelection } from '../fixtures/test-database.js';
import { startTestPostgres, type TestPostgres } from './test-postgres.js';
import { pgBouncerInFront, pgbouncerInstalled, type PgBouncerInFront } from '../fixtures/pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of the run (PostgreSQL runs only). */
    pgUrl: string;
    /** The database the integration specs run on (test/fixtures/database.ts). */
    testDatabase: TestDatabaseSelection;
  }
}

let server: TestPostgres | undefined;
let pooler: PgBouncerInFront | undefined;

/**
 * Selects the database of the project's run and provides it: SQL Server when
 * `QUEUEBOX_TEST_DB=mssql` (the integration-mssql project sets it) and `QUEUEBOX_MSSQL_URL` names a
 * server; else one PostgreSQL for the whole run, the server named by `QUEUEBOX_PG_URL` or an
 * embedded one (a real server from npm) so that `npm test` works on any machine.
 */
export async function setup(project: TestProject): Promise<void> {
  const type =
    (project.config.env?.QUEUEBOX_TEST_DB as string | undefined) ?? process.env.QUEUEBOX_TEST_DB ?? 'postgres';
  if (type === 'mssql') return setupSqlServer(project);
  if (type !== 'postgres') throw new Error(`QUEUEBOX_TEST_DB must be postgres or mssql, not ${JSON.stringify(type)}`);
  server ??= await startTestPostgres();
  project.provide('pgUrl', server.url);
  const poolerKind =
    (project.config.env?.QUEUEBOX_TEST_POOLER as string | undefined) ?? process.env.QUEUEBOX_TEST_POOLER;
  if (poolerKind === 'pgbouncer') return setupPgBouncer(project, server.url);
  // QUEUEBOX_PG_APP_URL: the test apps connect as a role with only the documented grants.
  project.provide('testDatabase', {
    type: 'postgres',
    url: server.url,
    appUrl: process.env.QUEUEBOX_PG_APP_URL || undefined,
  });
}

/**
 * The integration-pgbouncer project: the same server, reached through a real PgBouncer in
 * transaction mode (QueueBox's connections), with a session-mode database of the same PgBouncer
 * for QueueBox's LISTEN (`notify.listenUrl`). Without a PgBouncer binary every test of the project
 * is reported as skipped, with one loud line.
 */
async function setupPgBouncer(project: TestProject, upstream: string): Promise<void> {
  if (!pgbouncerInstalled()) {
    console.warn(
      `\n!!! ${project.name}: no PgBouncer binary (PGBOUNCER_BIN, else pgbouncer on the PATH or /usr/sbin/pgbouncer) — every test of this project is SKIPPED.\n`,
    );
    project.provide('testDatabase', { type: 'postgres' });
    return;
  }
  pooler ??= await pgBouncerInFront(upstream, 'transaction');
  project.provide('testDatabase', { type: 'postgres', url: pooler.url, listenUrl: pooler.sessionUrl });
}

async function setupSqlServer(project: TestProject): Promise<void> {
  const url = process.env.QUEUEBOX_MSSQL_URL;
  if (!url) {
    // One loud line per run: without a server, every test of the project is reported as skipped.
    console.warn(
      [
        '',
        `!!! ${project.name}: QUEUEBOX_MSSQL_URL is not set — every SQL Server test of this run is SKIPPED (none ran, none passed).`,
        '!!! Set QUEUEBOX_MSSQL_URL=mssql://user:password@host:1433/database?trustServerCertificate=true to run them',
        '!!! (contributing/testing-on-sql-server.md).',
        '',
      ].join('\n'),
    );
    project.provide('testDatabase', { type: 'mssql' });
    return;
  }
  await new MssqlTestDatabase(url).prepareServer();
  project.provide('testDatabase', { type: 'mssql', url });
}

export async function teardown(): Promise<void> {
  await pooler?.bouncer.stop();
  pooler = undefined;
  await server?.stop();
  server = undefined;
}
