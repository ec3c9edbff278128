import type { DataSource, QueryRunner } from 'typeorm';
import type { DriverRow } from '../../statement-results.js';
import type { StatementDeadline } from '../dialect-profile.interface.js';
import { beforeDeadline, withinDeadline } from '../statement-deadline.js';
import * as notifySql from './notify.sql.js';

/** The part of a node-postgres client the listener uses. */
export interface NotifyingClient {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(event: string): unknown;
}

/** The connection a LISTEN lives on: one of the application's pool, or one of its own (`notify.listenUrl`). */
export interface ListenSession {
  readonly client: NotifyingClient;
  /** False for a connection of its own (`notify.listenUrl`). */
  readonly pooled: boolean;
  /** Runs `sql` within the statement deadline; past it the session is discarded. */
  query(sql: string): Promise<readonly DriverRow[]>;
  /** Ends the session at once, without a round trip (it may be dead). */
  discard(): void;
  /** Ends the session: a healthy one stops listening first (a pooled one goes back to the pool clean). No-op once ended. */
  close(healthy: boolean): Promise<void>;
}

/** A connection of the DataSource's pool, held for as long as it listens. */
export async function openPooledSession(dataSource: DataSource, deadline: StatementDeadline): Promise<ListenSession> {
  const runner: QueryRunner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as NotifyingClient;
  return {
    client,
    pooled: true,
    query: (sql) => withinDeadline(runner, deadline.statementTimeoutMs, deadline.discard, () => runner.query(sql)),
    discard: () => deadline.discard?.(runner),
    close: async (healthy) => {
      client.removeAllListeners('notification');
      // A broken connection was already released (as broken) by TypeORM's error handler.
      if (runner.isReleased) return;
      if (!healthy) {
        // Never back to the pool: a LISTEN that failed on it (a terminated session, a demoted
        // primary refusing LISTEN during recovery) would fail again for the next user.
        deadline.discard?.(runner);
        if (!runner.isReleased) await runner.release().catch(() => undefined);
        return;
      }
      await runner.query(notifySql.unlistenAll()).catch(() => undefined);
      await runner.release().catch(() => undefined);
    },
  };
}

/** The parts of node-postgres that TypeORM loaded, and the pool's settings. */
interface PostgresDriverParts {
  postgres?: { Client: new (config: Record<string, unknown>) => DedicatedClient };
  master?: { options?: Record<string, unknown> };
}

interface DedicatedClient extends NotifyingClient {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: DriverRow[] }>;
  end(): Promise<void>;
  connection?: { stream?: { destroy(): void } };
}

/** What a connection of its own takes from the pool's settings where `notify.listenUrl` does not say. */
const INHERITED_SETTINGS = ['user', 'password', 'database', 'ssl', 'application_name'] as const;

/**
 * A connection of its own to `url` (`notify.listenUrl`), through the node-postgres that TypeORM
 * loaded: the application's pool connects through a pooler in transaction mode, where a LISTEN
 * would not last. What the URL leaves out (credentials, TLS, the application name) comes from the
 * pool's settings.
 */
export async function openDedicatedSession(
  dataSource: DataSource,
  url: string,
  deadline: StatementDeadline,
): Promise<ListenSession> {
  const driver = dataSource.driver as unknown as PostgresDriverParts;
  if (!driver.postgres) throw new Error('notify.listenUrl needs the node-postgres driver of a PostgreSQL DataSource');
  const pool = driver.master?.options ?? {};
  const inherited = Object.fromEntries(
    INHERITED_SETTINGS.filter((key) => pool[key] !== undefined).map((key) => [key, pool[key]]),
  );
  const client = new driver.postgres.Client({
    ...inherited,
    connectionString: url,
    connectionTimeoutMillis: deadline.statementTimeoutMs,
  });
  let ended = false;
  const discard = (): void => {
    ended = true;
    client.connection?.stream?.destroy();
  };
  // Until the transport listens: a connection that fails now must not end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    discard();
    throw error;
  }
  return {
    client,
    pooled: false,
    query: async (sql) => (await beforeDeadline(deadline.statementTimeoutMs, discard, () => client.query(sql))).rows,
    discard,
    close: async (healthy) => {
      if (ended) return;
      client.removeAllListeners('notification');
      if (!healthy) return discard();
      ended = true;
      await client.end().catch(() => client.connection?.stream?.destroy());
    },
  };
}
