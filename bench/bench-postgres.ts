import { readFile } from 'node:fs/promises';
import type pg from 'pg';
import { startEmbeddedPostgres } from '../tools/embedded-postgres.js';

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
  // fsync and synchronous_commit keep their defaults (on).
  const server = await startEmbeddedPostgres({
    name: 'queuebox-bench-pg',
    database: 'queuebox_bench',
    settings: { max_connections: '300' },
  });
  return {
    url: server.url,
    description: `embedded PostgreSQL on 127.0.0.1:${server.port} (fsync on)`,
    stop: () => server.stop(),
  };
}

/** The embedded server's postmaster, from the first line of postmaster.pid in its data directory. */
export async function readPostmasterPid(admin: pg.Pool): Promise<number | undefined> {
  try {
    const { rows } = await admin.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    const pid = Number((await readFile(`${rows[0].dir}/postmaster.pid`, 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
