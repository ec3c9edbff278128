import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { untilLeaseEnded } from '../../fixtures/db-clock.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { claimOutbox, claimPull, insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';

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
      const { rows, progress } = await repository.claimOutbox(request, { lock: false });
      cursor.advance(request, progress);
      for (const row of rows) served.add(row.key!);
      claims += 1;
    }
    // 101 keys, at most 16 walked per claim (and the window): every key within a few rounds.
    expect(served.size).toBe(101);
    expect(claims).toBeLessThanOrEqual(Math.ceil(101 / 8) + 2);
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
    expect(await repository.complete({ component: 'outbox', id: String(j1.id), token: j1.token, leaseMs: 300 })).toBe('lost');
    // k's oldest row again (not its second), and j's head, whose expired claim went back too.
    const second = await claimOutbox(repository, 10, 60_000);
    expect(second.map((row) => String(row.id)).sort()).toEqual([ids[0], ids[1]].sort());
    expect(second.every((row) => row.attempts === 2)).toBe(true);
  });
});
