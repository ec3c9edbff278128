import pg from 'pg';

/** What the coordinator's parts (sink, fault injector, intake sender, checks) need of a database connection. */
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * The coordinator's own connections: straight to the primary, never through the replicas'
 * address (which is cut, stale or read-only on purpose). After a failover, `follow` moves them to
 * the new primary at once: the sink records deliveries there, the fault injector terminates
 * sessions there, and the checks read there at the end. Everything they wrote on the former
 * primary was replicated synchronously (ha-pair.ts); a write that failed while the primary
 * changed is retried by its caller (the sink puts a batch back, a tick counts again).
 */
export class PrimaryPool implements Queryable {
  private pool: pg.Pool;

  constructor(url: string) {
    this.pool = PrimaryPool.open(url);
  }

  readonly query = ((...args: unknown[]) =>
    (this.pool.query as (...a: unknown[]) => unknown).apply(this.pool, args)) as pg.Pool['query'];

  /** From now on, to the server at `url`; the old connections are closed. */
  follow(url: string): void {
    const old = this.pool;
    this.pool = PrimaryPool.open(url);
    void old.end().catch(() => undefined);
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  private static open(url: string): pg.Pool {
    const pool = new pg.Pool({ connectionString: url, max: 4, application_name: 'chaos-coordinator' });
    pool.on('error', () => undefined);
    return pool;
  }
}
