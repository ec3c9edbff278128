import { escapeLiteral } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { SqlDialect } from '../../../lib/database/sql-dialect.interface.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { claimOutbox, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * PostgreSQL only (EXPLAIN's buffer counts): the bounded claim's cost follows its bounds, not the
 * backlog (contributing/claim-sql.md, "The claim").
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
    // The plan the claim runs with: the generic plan of its prepared statement (see below).
    const buffersOfClaim = async () => {
      const statement = dialect.claimOutbox(new WalkCursor().request(50, 60_000), { lock: false }).claim;
      // EXPLAIN ANALYZE runs the claim: in a transaction of its own, rolled back.
      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        await runner.query(`PREPARE claim_cost (integer, integer, integer, integer, text, text) AS ${statement.sql}`);
        await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
        // EXECUTE takes no bound parameters: its values go as literals (integers and escaped texts).
        const values = statement.params.map((value) => (typeof value === 'number' ? String(value) : escapeLiteral(String(value))));
        const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim_cost (${values.join(', ')})`);
        const top = (plan as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[])[0].Plan;
        return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
      } finally {
        await runner.rollbackTransaction();
        await runner.query('DEALLOCATE claim_cost');
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

  it('plans each claim statement once per connection: after five executions, PostgreSQL runs the generic plan', async () => {
    await testDatabase().truncate(db, schema, ['outbox', 'inbox']);
    await testDatabase().seedOutbox(db, schema, { key: null, count: 20 });
    await testDatabase().seedOutbox(db, schema, { key: 'k', count: 20 });
    const cursor = new WalkCursor();
    // Every claim of a busy worker differs in its values: batch, cursor, window.
    const claims = [
      dialect.claimOutbox(cursor.request(1, 60_000), { lock: false }).claim,
      dialect.claimOutbox(cursor.request(7, 60_000), { lock: false }).claim,
      dialect.claimOutbox({ ...cursor.request(3, 60_000), cursor: { stream: 'd', key: 'k' } }, { lock: false }).claim,
      dialect.claimPull('s', cursor.request(2, 60_000), { lock: false }).claim,
      dialect.claimInbox(['s', 't'], { ...cursor.request(4, 60_000), cursor: { stream: 's', key: '' } }).claim,
    ];
    const runner = db.createQueryRunner();
    try {
      const client = (await runner.connect()) as { query(config: { name: string; text: string; values: unknown[] }): Promise<unknown> };
      await runner.startTransaction();
      const executions = new Map<string, number>();
      for (let round = 0; round < 12; round++) {
        for (const statement of claims) {
          await client.query({ name: statement.name!, text: statement.sql, values: [...statement.params] });
          executions.set(statement.name!, (executions.get(statement.name!) ?? 0) + 1);
        }
      }
      const plans = (await runner.query(`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name = ANY($1::text[]) ORDER BY name`, [
        [...new Set(claims.map((statement) => statement.name))],
      ])) as { name: string; generic_plans: string; custom_plans: string }[];
      // The outbox's, the pull workers' and the relay's claim statements.
      expect(plans).toHaveLength(3);
      // The plan cache tries five custom plans, then keeps the generic one: it is no dearer. (The
      // pooled connection may have run a claim before this test: its counts start there.)
      for (const plan of plans) {
        expect({ name: plan.name, custom: Number(plan.custom_plans) }).toEqual({ name: plan.name, custom: 5 });
        expect(Number(plan.generic_plans)).toBeGreaterThanOrEqual(executions.get(plan.name)! - 5);
      }
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
