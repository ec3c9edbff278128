import type { TestProject } from 'vitest/node';
import { startTestPostgres, type TestPostgres } from './test-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

let server: TestPostgres | undefined;

/**
 * Starts one PostgreSQL for the whole run: the server named by `QUEUEBOX_PG_URL`, or an
 * embedded one (a real server from npm) so that `npm test` works on any machine.
 */
export async function setup(project: TestProject): Promise<void> {
  server ??= await startTestPostgres();
  project.provide('pgUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  server = undefined;
}
