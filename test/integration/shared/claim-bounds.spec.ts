import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { untilLeaseEnded } from '../../fixtures/db-clock.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import {
  claimInbox,
  claimOutbox,
  claimPull,
  insertInboxRow,
  insertRows,
  repositoryFor,
} from '../../fixtures/outbox-rows.js';

/**
 * The bounded claim (contributing/claim-sql.md, "The claim"): every key gets its turn, however
 * deep the keys before it; FIFO per key holds. (That its cost follows its bounds, not the
 * backlog, is measured on PostgreSQL in pg/claim-cost.spec.ts.)
 */
describeWithDatabase('bounded claims', () => {
  let schema: string;
  let db: DataSource;
  let repository: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema);
    ({ repository } = repositoryFor(db, schema));
  });
  beforeEach(async () => {
    await testDatabase().truncate(db, schema, ['outbox', 'inbox']);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  /** Inserts `count` rows of `key` (NULL: unordered) for destination `d`, in id order. */
  const seed = (key: string | null, count: number) => testDatabase().seedOutbox(db, schema, { key, count });

  it('reaches a key and an unordered row behind a hot key’s deep backlog in one claim', async () => {
    await seed('hot', 5_000);
    await seed('cold', 1);
    await seed(null, 1);
    const rows = await claimOutbox(repository, 10, 60_000);
    expect(rows.map((row) => row.key).sort()).toEqual(['cold', 'hot', null].sort());
    // The hot key's head is its oldest row.
    const [oldest] = await outboxRows(db, schema);
    expect(Math.min(...rows.filter((row) => row.key === 'hot').map((row) => Number(row.id)))).toBe(Number(oldest.id));
  });

  it('visits every key in turn when there are more keys than one claim walks', async () => {
    // The hot key fills the window; 100 keys follow, more than one walk covers.
    await seed('hot', 2_000);
    for (let k = 0; k < 100; k++) await seed(`k${String(k).padStart(3, '0')}`, 3);
    const cursor = new WalkCursor();
    const served = new Set<string>();
    let claims = 0;
    while (served.size < 101 && claims < 30) {
      const request = cursor.request(8, 60_000);
      const { rows, progress } = await repository.claimOutbox(['d'], request, { lock: false });
      cursor.advance(request, progress);
      for (const row of rows) served.add(row.key!);
      claims += 1;
    }
    // 101 keys, at most 16 walked per claim (and the window): every key within a few rounds.
    expect(served.size).toBe(101);
    expect(claims).toBeLessThanOrEqual(Math.ceil(101 / 8) + 2);
  });

  it('claims rows of the claimer’s own streams only; the rows of others, ahead of them, stay pending and untouched', async () => {
    // Destinations the claimer does not have, before, between and after its own (`d`, `e`) in the
    // walk's order; ahead of its rows in the queue: more keys than a walk takes and a window holds,
    // unordered rows, and a retried row that is due.
    for (let k = 0; k < 40; k++)
      await testDatabase().seedOutbox(db, schema, {
        key: `k${String(k).padStart(2, '0')}`,
        count: 1,
        destination: 'a-gone',
      });
    for (const destination of ['m-gone', 'z-gone']) {
      await testDatabase().seedOutbox(db, schema, { key: 'k', count: 2, destination });
      await testDatabase().seedOutbox(db, schema, { key: null, count: 2, destination });
    }
    const [head] = await claimOutbox(repository, 1, 60_000, false, ['m-gone']);
    expect(
      await repository.retry({ component: 'outbox', id: head.id, token: head.token, leaseMs: 60_000 }, 0, 'failed'),
    ).toBe('ok');
    await seed('k', 2);
    await seed('j', 1);
    await seed(null, 1);
    await testDatabase().seedOutbox(db, schema, { key: 'k', count: 1, destination: 'e' });
    const others = async () => (await outboxRows(db, schema)).filter((row) => row.destination.endsWith('-gone'));
    const before = await others();
    // A small batch: a walk of 16 keys, a window of 32 rows, both fewer than the rows ahead.
    const rows = await claimOutbox(repository, 4, 60_000, false, ['d', 'e']);
    expect(rows.map((row) => `${row.destination}/${row.key}`).sort()).toEqual(['d/j', 'd/k', 'd/null', 'e/k']);
    expect(await others()).toEqual(before);

    // The relay's claim takes its routed sources' rows only; a pull claim its source's.
    await testDatabase().seedInbox(db, schema, { source: 'other', key: 'k', count: 2 });
    await insertInboxRow(db, schema, { source: 'other', idempotencyKey: 'u' });
    await testDatabase().seedInbox(db, schema, { source: 'routed', key: 'k', count: 1 });
    await testDatabase().seedInbox(db, schema, { source: 'pulled', key: 'k', count: 1 });
    const relayed = await claimInbox(repository, ['routed'], 10, 60_000);
    const pulled = await claimPull(repository, 'pulled', 10, 60_000);
    expect([...relayed, ...pulled].map((row) => row.source)).toEqual(['routed', 'pulled']);
    const inbox = await inboxRows(db, schema);
    expect(
      inbox
        .filter((row) => row.source === 'other')
        .map(({ state, attempts, claim_token }) => ({ state, attempts, claim_token })),
    ).toEqual(Array.from({ length: 3 }, () => ({ state: 'pending', attempts: 0, claim_token: null })));
  });

  it('pull claims serve a key behind a deep one, one row per key, oldest first', async () => {
    await testDatabase().seedInbox(db, schema, { source: 's', key: 'deep', count: 3_000 });
    await testDatabase().seedInbox(db, schema, { source: 's', key: 'shallow', count: 2 });
    const rows = await claimPull(repository, 's', 10, 60_000);
    expect(rows.map((row) => [row.key, row.idempotencyKey]).sort()).toEqual([
      ['deep', 'deep1'],
      ['shallow', 'shallow1'],
    ]);
  });

  it('the window takes one row per key, the oldest: a key stays one in flight, and after its lease ended and the reclaim, its oldest row comes first again', async () => {
    // Both keys' rows interleaved near the front of the queue: all of them are in the window.
    const ids = await insertRows(db, schema, ['k', 'j', 'k', 'j', 'k', 'j']);
    const first = await claimOutbox(repository, 10, 300);
    expect(first.map((row) => String(row.id)).sort()).toEqual([ids[0], ids[1]].sort());
    // With both heads in flight, nothing of either key is claimable, however many rows the window holds.
    expect(await claimOutbox(repository, 10, 60_000)).toEqual([]);
    const k1 = first.find((row) => row.key === 'k')!;
    const j1 = first.find((row) => row.key === 'j')!;
    await untilLeaseEnded(db, schema, String(k1.id));
    // Both heads were claimed by one statement with one lease: both leases have ended.
    expect(await repository.reclaimExpired('outbox')).toBe(2);
    expect(await repository.complete({ component: 'outbox', id: String(j1.id), token: j1.token, leaseMs: 300 })).toBe(
      'lost',
    );
    // k's oldest row again (not its second), and j's head, whose expired claim went back too.
    const second = await claimOutbox(repository, 10, 60_000);
    expect(second.map((row) => String(row.id)).sort()).toEqual([ids[0], ids[1]].sort());
    expect(second.every((row) => row.attempts === 2)).toBe(true);
  });
});
