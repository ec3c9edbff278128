import type { TestProject } from 'vitest/node';
import { MssqlTestDatabase } from '../fixtures/mssql-test-database.js';
import type { TestDatabaseSelection } from '../fixtures/test-database.js';
import { startTestPostgres, type TestPostgres } from './test-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of the run (PostgreSQL runs only). */
    pgUrl: string;
    /** The database the integration specs run on (test/fixtures/database.ts). */
    testDatabase: TestDatabaseSelection;
  }
}

let server: TestPostgres | undefined;

/**
 * Selects the database of the project's run and provides it: SQL Server when
 * `QUEUEBOX_TEST_DB=mssql` (the integration-mssql project sets it) and `QUEUEBOX_MSSQL_URL` names a
 * server; else one PostgreSQL for the whole run, the server named by `QUEUEBOX_PG_URL` or an
 * embedded one (a real server from npm) so that `npm test` works on any machine.
 */
export async function setup(project: TestProject): Promise<void> {
  const type = (project.config.env?.QUEUEBOX_TEST_DB as string | undefined) ?? process.env.QUEUEBOX_TEST_DB ?? 'postgres';
  if (type === 'mssql') return setupSqlServer(project);
  if (type !== 'postgres') throw new Error(`QUEUEBOX_TEST_DB must be postgres or mssql, not ${JSON.stringify(type)}`);
  server ??= await startTestPostgres();
  project.provide('pgUrl', server.url);
  project.provide('testDatabase', { type: 'postgres', url: server.url });
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
  await server?.stop();
  server = undefined;
}
