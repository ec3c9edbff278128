import { startEmbeddedPostgres } from '../../tools/embedded-postgres.js';
import { isLeftoverSchema } from '../fixtures/test-database.js';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/** The server named by `QUEUEBOX_PG_URL`, else an embedded PostgreSQL on a free loopback port. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.QUEUEBOX_PG_URL;
  if (external) {
    await dropLeftoverSchemas(external);
    return { url: external, stop: async () => undefined };
  }

  // fsync off: tests measure nothing, and commits are most of their time.
  const server = await startEmbeddedPostgres({
    name: 'queuebox-test-pg',
    database: 'queuebox_test',
    settings: { max_connections: '300', fsync: 'off' },
  });
  return { url: server.url, stop: () => server.stop() };
}

/**
 * Test files create `qb_*` schemas; on a long-lived server, drop those earlier runs left behind,
 * never those of a run still going (test-database.ts, `isLeftoverSchema`).
 */
async function dropLeftoverSchemas(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'qb\\_%'`,
    );
    for (const { nspname } of rows.filter((row) => isLeftoverSchema(row.nspname)))
      await client.query(`DROP SCHEMA "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}
