import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { DataSource } from 'typeorm';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * After a failover, a client can keep sessions on the demoted primary: a DNS name moves, but the
 * connections opened through it before stay where they are, now on a hot standby, and every
 * write on them fails with 25006 (`cannot execute … in a read-only transaction`). A pool that
 * hands such a session out again fails every statement of QueueBox on it for as long as the
 * session lives, and a busy pool never lets it go idle. QueueBox drops a session that refused a
 * write as read-only, so that its next statement connects anew through the address.
 *
 * The read-only server here is the test server itself, for one role: its sessions start with
 * `default_transaction_read_only`; resetting that setting is the address moving (new sessions
 * can write; the sessions already open stay read-only, as on a standby).
 */
describe('a pooled session on a read-only server (a demoted primary a stale address still leads to)', () => {
  const role = `qb_ro_${randomBytes(4).toString('hex')}`;
  let schema: string;
  let admin: DataSource;
  let readOnly: DataSource;

  beforeAll(async () => {
    schema = await createTestSchema();
    admin = await openDataSource(schema, 2);
    await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${role}'`);
  });
  afterAll(async () => {
    await readOnly?.destroy().catch(() => undefined);
    await admin?.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await admin?.destroy();
  });

  beforeEach(async () => {
    await readOnly?.destroy().catch(() => undefined);
    await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    const url = new URL(inject('testDatabase').url!);
    url.username = role;
    url.password = role;
    // One session, never closed for being idle: a busy application's pool, where a bad session would be handed out again and again.
    readOnly = await new DataSource({
      type: 'postgres',
      url: url.toString(),
      schema,
      extra: { max: 1, idleTimeoutMillis: 0 },
    }).initialize();
  });

  /** The address moves to the writable primary: sessions opened from now on can write; the open one stays read-only. */
  const addressMoves = (): Promise<unknown> => admin.query(`ALTER ROLE ${role} RESET default_transaction_read_only`);
  const backend = async (): Promise<number> =>
    (await readOnly.query('SELECT pg_backend_pid() AS pid'))[0].pid as number;

  it.each([
    ['in autocommit', false],
    ['in a transaction of its own (the claim lock)', true],
  ])('drops it after a claim %s fails with 25006: the next claim connects anew and claims', async (_name, lock) => {
    const [id] = await insertRows(admin, schema, [`k-${lock}`]);
    const { repository } = repositoryFor(readOnly, schema);
    const request = new WalkCursor().request(10, 30_000);
    const before = await backend();
    await expect(repository.claimOutbox(['d'], request, { lock })).rejects.toMatchObject({ code: '25006' });
    await addressMoves();
    const { rows } = await repository.claimOutbox(['d'], request, { lock });
    expect(rows.map((row) => row.id)).toContain(id);
    expect(await backend()).not.toBe(before);
  });

  it("drops it after a worker's transaction (the relay's forward, a pull handler) fails with 25006", async () => {
    const { runner } = repositoryFor(readOnly, schema);
    const table = testDatabase().table(schema, 'outbox');
    const write = (): Promise<unknown> =>
      runner.withManager((manager) => manager.query(`UPDATE ${table} SET attempts = attempts WHERE false`));
    const before = await backend();
    await expect(write()).rejects.toMatchObject({ code: '25006' });
    await addressMoves();
    await write();
    expect(await backend()).not.toBe(before);
  });
});
