import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PgBouncer, pgBouncerInFront, pgbouncerInstalled, type PgBouncerInFront } from '../../fixtures/pgbouncer.js';

/** One statement on a client of its own. */
async function once<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The PgBouncer launcher the chaos suite and the integration specs share (chaos/pgbouncer.ts): a
 * real PgBouncer (Debian's package) in front of the test server, in transaction mode, re-pointed
 * by a rewrite of `[databases]` and a reload, stopped with its folder. Skipped where the
 * `pgbouncer` program is missing (CI installs it).
 */
describe.skipIf(!pgbouncerInstalled())('the PgBouncer launcher (test/fixtures/pgbouncer.ts)', () => {
  const serverUrl = inject('testDatabase').url!;
  const server = new URL(serverUrl);
  const dbname = decodeURIComponent(server.pathname.slice(1));
  const port = Number(server.port || 5432);
  let front: PgBouncerInFront;

  beforeAll(async () => {
    front = await pgBouncerInFront(serverUrl);
  });
  afterAll(async () => {
    await front?.bouncer.stop();
  });

  it('pools per transaction: two clients share one server connection, so a LISTEN of one is seen by the other', async () => {
    const password = decodeURIComponent(server.password);
    const bouncer = await PgBouncer.start({
      databases: { [dbname]: { host: server.hostname, port, dbname } },
      defaultPoolSize: 1,
      password,
    });
    const [a, b] = [
      new pg.Client({ connectionString: bouncer.url(dbname) }),
      new pg.Client({ connectionString: bouncer.url(dbname) }),
    ];
    try {
      await Promise.all([a.connect(), b.connect()]);
      await a.query('LISTEN queuebox_bouncer_probe');
      const pid = async (client: pg.Client): Promise<number> =>
        (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      expect(await pid(b)).toBe(await pid(a));
      expect((await b.query('SELECT pg_listening_channels() AS c')).rows).toEqual([{ c: 'queuebox_bouncer_probe' }]);
    } finally {
      await Promise.all([a.end(), b.end()]);
      await bouncer.stop();
    }
  });

  it('writes each entry with its pool mode: <database> in transaction mode, <database>_session in session mode', async () => {
    const shown = await front.bouncer.admin<{ name: string; pool_mode: string | null }>('SHOW DATABASES');
    const modes = Object.fromEntries(shown.map((row) => [row.name, row.pool_mode]));
    // No pool mode of its own: the default, transaction.
    expect(modes[dbname]).toBeNull();
    expect(modes[`${dbname}_session`]).toBe('session');
    expect(
      (await front.bouncer.admin<{ key: string; value: string }>('SHOW CONFIG')).find((row) => row.key === 'pool_mode')
        ?.value,
    ).toBe('transaction');
  });

  it('retargets: after the reload, the next transaction of a connected client runs on the new target', async () => {
    const client = new pg.Client({ connectionString: front.url });
    await client.connect();
    try {
      expect((await client.query('SELECT current_database() AS db')).rows).toEqual([{ db: dbname }]);
      await front.bouncer.retarget({ [dbname]: { host: server.hostname, port, dbname: 'postgres' } });
      expect((await client.query('SELECT current_database() AS db')).rows).toEqual([{ db: 'postgres' }]);
      expect(await once(front.url, 'SELECT current_database() AS db')).toEqual([{ db: 'postgres' }]);
    } finally {
      await client.end();
    }
  });

  it('stops: its port refuses connections afterwards', async () => {
    const { bouncer, url } = await pgBouncerInFront(serverUrl);
    expect(await once(url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await bouncer.stop();
    await expect(once(url, 'SELECT 1 AS one')).rejects.toThrow(/ECONNREFUSED/);
  });
});
