import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/claims/claim.repository.js';
import { WalkCursor } from '../../../lib/claims/walk-cursor.js';
import type { PostgresDialect } from '../../../lib/dialects/postgres/postgres.dialect.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { claimOutbox, claimPull, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * The bounded claim (docs/internals/claim-sql.md, "The claim"): its cost follows its bounds, not
 * the backlog; every key gets its turn, however deep the keys before it; FIFO per key holds.
 */
describe('bounded claims', () => {
  let schema: string;
  let db: DataSource;
  let repository: ClaimRepository;
  let dialect: PostgresDialect;
  const outbox = () => `"${schema}".queuebox_outbox_messages`;

  beforeAll(async () => {
    schema = await createTestSchema(inject('pgUrl'));
    db = await openDataSource(inject('pgUrl'), schema);
    ({ repository, dialect } = repositoryFor(db, schema));
  });
  beforeEach(async () => {
    await db.query(`TRUNCATE ${outbox()}, "${schema}".queuebox_inbox_messages`);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  /** Inserts `count` rows of `key` (NULL: unordered) for destination `d`, in id order. */
  const seed = (key: string | null, count: number) =>
    db.query(`INSERT INTO ${outbox()} (message_id, destination, ordering_key, payload) SELECT gen_random_uuid(), 'd', $1, '1' FROM generate_series(1, $2)`, [key, count]);

  it('reaches a key and an unordered row behind a hot key’s deep backlog in one claim', async () => {
    await seed('hot', 5_000);
    await seed('cold', 1);
    await seed(null, 1);
    const rows = await claimOutbox(repository, 10, 60_000);
    expect(rows.map((row) => row.key).sort()).toEqual(['cold', 'hot', null].sort());
    // The hot key's head is its oldest row.
    expect(Math.min(...rows.filter((row) => row.key === 'hot').map((row) => Number(row.id)))).toBe(
      Number((await db.query(`SELECT min(id) AS id FROM ${outbox()}`))[0].id),
    );
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

  it('costs the same buffers on a deep blocked backlog as on a shallow one', async () => {
    const buffersOfClaim = async () => {
      const statement = dialect.claimOutbox(new WalkCursor().request(50, 60_000), { lock: false }).claim;
      await db.query('BEGIN');
      try {
        const [{ 'QUERY PLAN': plan }] = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, [...statement.params]);
        const top = (plan as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[])[0].Plan;
        return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
      } finally {
        await db.query('ROLLBACK');
      }
    };
    // Five keys whose heads are in flight: every pending row is blocked.
    const blockedBacklog = async (perKey: number) => {
      await db.query(`TRUNCATE ${outbox()}`);
      for (let k = 0; k < 5; k++) await seed(`k${k}`, perKey);
      await claimOutbox(repository, 10, 60_000);
      await db.query(`VACUUM ANALYZE ${outbox()}`);
    };
    await blockedBacklog(400);
    const shallow = await buffersOfClaim();
    await blockedBacklog(4_000);
    const deep = await buffersOfClaim();
    // Ten times the backlog, the same bounded work (the old claim read every blocked row: some
    // twenty thousand index entries here).
    expect(deep).toBeLessThanOrEqual(1.5 * shallow);
  });

  it('pull claims serve a key behind a deep one, one row per key, oldest first', async () => {
    const insert = (key: string, count: number) =>
      db.query(
        `INSERT INTO "${schema}".queuebox_inbox_messages (source, idempotency_key, ordering_key, payload) SELECT 's', $1 || g, $1, '1' FROM generate_series(1, $2) g`,
        [key, count],
      );
    await insert('deep', 3_000);
    await insert('shallow', 2);
    const rows = await claimPull(repository, 's', 10, 60_000);
    expect(rows.map((row) => [row.key, row.idempotencyKey]).sort()).toEqual([
      ['deep', 'deep1'],
      ['shallow', 'shallow1'],
    ]);
  });
});
