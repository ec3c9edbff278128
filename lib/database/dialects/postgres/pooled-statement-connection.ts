import type { DataSource } from 'typeorm';
import type { StatementConnection } from '../../statement-connection.js';

type Release = (error?: Error) => void;

/** The part of a node-postgres client an unprepared statement needs. */
interface PgClient {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The part of a node-postgres pool (pg-pool) a statement's connection needs. */
interface PgPool {
  connect(callback: (error: Error | undefined, client: PgClient, release: Release) => void): void;
}

/**
 * One autocommit statement's connection, straight from TypeORM's node-postgres pool.
 *
 * WHY not TypeORM's query runner: for a statement outside a transaction the runner adds nothing
 * QueueBox uses, and costs each statement an object with a broadcaster, three promises between the
 * pool's answer and the statement's bytes, an `error` listener added and removed, and a list it is
 * pushed to and spliced from. The single key sends one statement a message; that is about 8 µs of
 * its Node time (see docs/benchmark.md).
 *
 * It keeps the runner's members that discarding a connection reads (`databaseConnection`,
 * `releaseCallback`, `releasePostgresConnection`), so a statement past its deadline is cancelled
 * and its connection dropped as on a runner. Every client of the pool already has an `error`
 * listener (pool-error-guard.ts); a client that failed is not queryable, and pg-pool drops it on
 * release. Used only for named (prepared) statements, which go to the client directly on a runner
 * too; their unprepared retry after a pooler lost the statement runs here on node-postgres
 * directly, as the named form does.
 */
export class PooledStatementConnection implements StatementConnection {
  isReleased = false;
  readonly isTransactionActive = false;
  databaseConnection?: PgClient;
  releaseCallback?: Release;
  private connecting?: Promise<PgClient>;

  constructor(private readonly pool: PgPool) {}

  /** The DataSource's node-postgres pool, or undefined where its driver has none (then TypeORM's runner is used). */
  static poolOf(dataSource: DataSource): PgPool | undefined {
    const master = (dataSource.driver as unknown as { master?: Partial<PgPool> } | undefined)?.master;
    return typeof master?.connect === 'function' ? (master as PgPool) : undefined;
  }

  connect(): Promise<PgClient> {
    if (this.databaseConnection) return Promise.resolve(this.databaseConnection);
    this.connecting ??= new Promise<PgClient>((resolve, reject) => {
      this.pool.connect((error, client, release) => {
        if (error) {
          reject(error);
          return;
        }
        // Given up while the pool was connecting: the connection goes straight back.
        if (this.isReleased) {
          release();
          reject(new Error('the statement was given up before its connection came'));
          return;
        }
        this.databaseConnection = client;
        this.releaseCallback = release;
        resolve(client);
      });
    });
    return this.connecting;
  }

  async query(sql: string, params: unknown[]): Promise<{ records: unknown[] }> {
    const client = await this.connect();
    return { records: (await client.query(sql, params)).rows };
  }

  /** With `error`, pg-pool removes the client instead of keeping it (as TypeORM's runner does). */
  releasePostgresConnection(error?: Error): Promise<void> {
    if (this.isReleased) return Promise.resolve();
    this.isReleased = true;
    const release = this.releaseCallback;
    this.releaseCallback = undefined;
    release?.(error);
    return Promise.resolve();
  }

  release(): Promise<void> {
    return this.releasePostgresConnection();
  }
}
