import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/claims/claim.repository.js';
import { WalkCursor } from '../../../lib/claims/walk-cursor.js';
import type { SqlDialect } from '../../../lib/dialects/sql-dialect.interface.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { claimOutbox, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * PostgreSQL only (EXPLAIN's buffer counts): the bounded claim's cost follows its bounds, not the
 * backlog (docs/internals/claim-sql.md, "The claim").
 */
describe('bounded claims: cost', () => {
  let schema: string;
  let db: DataSource;
  let repository: ClaimRepository;
  let dialect: SqlDialect;
  const outbox = () => testDatabase().table(schema, 'outbox');

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema);
    ({ repository, dialect } = repositoryFor(db, schema));
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('costs the same buffers on a deep blocked backlog as on a shallow one', async () => {
    const buffersOfClaim = async () => {
      const statement = dialect.claimOutbox(new WalkCursor().request(50, 60_000), { lock: false }).claim;
      // EXPLAIN ANALYZE runs the claim: in a transaction of its own, rolled back.
      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, [...statement.params]);
        const top = (plan as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[])[0].Plan;
        return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    };
    // Five keys whose heads are in flight: every pending row is blocked.
    const blockedBacklog = async (perKey: number) => {
      await testDatabase().truncate(db, schema, ['outbox']);
      for (let k = 0; k < 5; k++) await testDatabase().seedOutbox(db, schema, { key: `k${k}`, count: perKey });
      await claimOutbox(repository, 10, 60_000);
      await db.query(`ANALYZE ${outbox()}`);
      // Buffers count heap visits, and an index-only scan visits the heap for every page not yet
      // all-visible: VACUUM until every page is (another session's open snapshot can hold that
      // back for a moment on a shared server), so that both sizes are measured alike.
      await waitFor(
        async () => {
          await db.query(`VACUUM ${outbox()}`);
          const [{ visible }] = await db.query(`SELECT relallvisible >= relpages AS visible FROM pg_class WHERE oid = $1::regclass`, [outbox()]);
          return visible === true;
        },
        45_000,
        'every page of the outbox to be all-visible',
      );
    };
    await blockedBacklog(400);
    const shallow = await buffersOfClaim();
    await blockedBacklog(4_000);
    const deep = await buffersOfClaim();
    // Ten times the backlog, the same bounded work (the old claim read every blocked row: some
    // twenty thousand index entries here).
    expect(deep).toBeLessThanOrEqual(1.5 * shallow);
  });
});
