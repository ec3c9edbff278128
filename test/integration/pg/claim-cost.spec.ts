import { escapeLiteral } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { SqlDialect } from '../../../lib/database/sql-dialect.interface.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { claimOutbox, repositoryFor } from '../../fixtures/outbox-rows.js';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** A statement's value as a literal of EXECUTE, which takes no bound parameters (integers, flags, texts and arrays of them). */
const literal = (value: unknown): string =>
  typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : Array.isArray(value)
      ? escapeLiteral(`{${value.map((element) => `"${String(element)}"`).join(',')}}`)
      : escapeLiteral(String(value));

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

  /** Buffers of one claim of destination `d` (50 rows), as the claim runs: the generic plan of its prepared statement (see below). */
  const buffersOfClaim = async () => {
    const statement = dialect.claimOutbox(['d'], new WalkCursor().request(50, 60_000), { lock: false }).claim;
    // EXPLAIN ANALYZE runs the claim: in a transaction of its own, rolled back.
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(
        `PREPARE claim_cost (integer, integer, integer, integer, text, text, text[], boolean) AS ${statement.sql}`,
      );
      await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      const [{ 'QUERY PLAN': plan }] = await runner.query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim_cost (${statement.params.map(literal).join(', ')})`,
      );
      const top = (plan as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[])[0].Plan;
      return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
    } finally {
      await runner.rollbackTransaction();
      await runner.query('DEALLOCATE claim_cost');
      await runner.release();
    }
  };

  /**
   * Buffers count heap visits, and an index-only scan visits the heap for every page not yet
   * all-visible: VACUUM until every page is (another session's open snapshot can hold that back
   * for a moment on a shared server), so that two sizes are measured alike.
   */
  const settle = async () => {
    await db.query(`ANALYZE ${outbox()}`);
    await waitFor(
      async () => {
        await db.query(`VACUUM ${outbox()}`);
        const [{ visible }] = await db.query(
          `SELECT relallvisible >= relpages AS visible FROM pg_class WHERE oid = $1::regclass`,
          [outbox()],
        );
        return visible === true;
      },
      45_000,
      'every page of the outbox to be all-visible',
    );
  };

  /** The claim after `seed(small)` and after `seed(large)` reads the same buffers (within half again). */
  const expectSameBuffers = async (seed: (rows: number) => Promise<void>, small: number, large: number) => {
    await seed(small);
    const shallow = await buffersOfClaim();
    await seed(large);
    expect(await buffersOfClaim()).toBeLessThanOrEqual(1.5 * shallow);
  };

  it('costs the same buffers on a deep blocked backlog as on a shallow one', async () => {
    // Five keys whose heads are in flight: every pending row is blocked.
    const blockedBacklog = async (perKey: number) => {
      await testDatabase().truncate(db, schema, ['outbox']);
      for (let k = 0; k < 5; k++) await testDatabase().seedOutbox(db, schema, { key: `k${k}`, count: perKey });
      await claimOutbox(repository, 10, 60_000);
      await settle();
    };
    // Ten times the backlog, the same bounded work (the old claim read every blocked row: some
    // twenty thousand index entries here).
    await expectSameBuffers(blockedBacklog, 400, 4_000);
  });

  it('costs the same buffers however many rows of destinations it does not have wait ahead of its own', async () => {
    // Rows of 200 destinations the claimer does not have (a rolling deploy, destinations removed),
    // all ahead of its own in the queue: keyed, unordered, and a third of them retried and due.
    const strandedAhead = async (rows: number) => {
      await testDatabase().truncate(db, schema, ['outbox']);
      await db.query(
        `INSERT INTO ${outbox()} (message_id, destination, ordering_key, payload, attempts)
         SELECT gen_random_uuid(), 'gone-' || (g % 200), CASE WHEN g % 2 = 0 THEN NULL ELSE 'k' || (g % 50) END, '1', CASE WHEN g % 3 = 0 THEN 1 ELSE 0 END
         FROM generate_series(1, $1::integer) AS g`,
        [rows],
      );
      for (let k = 0; k < 5; k++) await testDatabase().seedOutbox(db, schema, { key: `k${k}`, count: 20 });
      await testDatabase().seedOutbox(db, schema, { key: null, count: 20 });
      await settle();
    };
    // Forty times the rows it leaves, the same bounded work (a claim that filtered them out of
    // table-wide scans would read every one of them: its unordered and retried candidates, and
    // its walk over every key of every destination).
    await expectSameBuffers(strandedAhead, 500, 20_000);
  });

  /**
   * Buffers per row of one completion with the hand-off of `rows`, as the poller runs it: the generic
   * plan of its prepared statement, in a transaction rolled back.
   */
  const buffersPerCompletedRow = async (rows: readonly { id: string; token: string }[]) => {
    const statement = dialect.completeMany('outbox', rows, 60_000, true);
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`PREPARE completion_cost AS ${statement.sql}`);
      await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      const [{ 'QUERY PLAN': plan }] = await runner.query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE completion_cost (${statement.params.map(literal).join(', ')})`,
      );
      const top = (
        plan as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Actual Rows': number } }[]
      )[0].Plan;
      // Every row is marked sent and hands its key on: the statement did its whole work.
      expect(top['Actual Rows']).toBe(2 * rows.length);
      return (top['Shared Hit Blocks'] + top['Shared Read Blocks']) / rows.length;
    } finally {
      await runner.rollbackTransaction();
      await runner.query('DEALLOCATE completion_cost');
      await runner.release();
    }
  };

  it('completes and hands off at the same cost per row when its plan was made on the statistics of an empty queue', async () => {
    // A healthy queue: a table of finished rows, nothing pending, analyzed so (autovacuum off, so
    // that only this test decides when statistics are taken).
    await testDatabase().truncate(db, schema, ['outbox']);
    await db.query(`ALTER TABLE ${outbox()} SET (autovacuum_enabled = false)`);
    try {
      await db.query(
        `INSERT INTO ${outbox()} (message_id, destination, ordering_key, payload, state, finished_at, attempts)
         SELECT gen_random_uuid(), 'd', 'k' || (g % 1000), '1', 'sent', statement_timestamp(), 1 FROM generate_series(1, 20000) AS g`,
      );
      await settle();
      // Then a backlog: 200 keys of 10 rows each, the head of every key in flight.
      await db.query(
        `INSERT INTO ${outbox()} (message_id, destination, ordering_key, payload)
         SELECT gen_random_uuid(), 'd', 'k' || (g % 200), '1' FROM generate_series(1, 2000) AS g`,
      );
      // TypeORM answers an UPDATE … RETURNING on PostgreSQL with [rows, affected].
      const [claims] = (await db.query(
        `UPDATE ${outbox()} SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
           lease_expires_at = statement_timestamp() + interval '1 hour', attempts = 1
         WHERE id IN (SELECT DISTINCT ON (ordering_key) id FROM ${outbox()} WHERE state = 'pending' ORDER BY ordering_key, id)
         RETURNING id::text AS id, claim_token AS token`,
      )) as [{ id: string; token: string }[], number];
      expect(claims).toHaveLength(200);
      // Planned on the empty queue's statistics, as a poller's connection would have it after an ANALYZE there.
      const stale = await buffersPerCompletedRow(claims);
      // Planned on statistics of this backlog.
      await settle();
      const fresh = await buffersPerCompletedRow(claims);
      // Before schema version 4 and the per-row anti-join, the stale plan found each key's next row by
      // reading the pending rows in id order and read every row in flight for each row: about 15 times
      // the fresh plan's buffers here, and more the deeper the backlog and the more rows in flight.
      expect(stale).toBeLessThanOrEqual(1.5 * fresh);
    } finally {
      await db.query(`ALTER TABLE ${outbox()} RESET (autovacuum_enabled)`);
    }
  });

  it("reads the window's index for the window only: no other lookup of a key's rows can be planned on it", async () => {
    await testDatabase().truncate(db, schema, ['outbox', 'inbox']);
    const cursor = new WalkCursor();
    const statements = {
      outbox: dialect.claimOutbox(['d'], cursor.request(50, 60_000), { lock: false }).claim,
      relay: dialect.claimInbox(['s'], cursor.request(50, 60_000)).claim,
      pull: dialect.claimPull('s', cursor.request(50, 60_000), { lock: false }).claim,
      completeMany: dialect.completeMany(
        'outbox',
        [
          { id: '1', token: ZERO_UUID },
          { id: '2', token: ZERO_UUID },
        ],
        60_000,
        true,
      ),
      completeOne: dialect.completeMany('outbox', [{ id: '1', token: ZERO_UUID }], 60_000, true),
      relayCompletion: dialect.completeMany(
        'relay',
        [
          { id: '1', token: ZERO_UUID },
          { id: '2', token: ZERO_UUID },
        ],
        60_000,
      ),
    };
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      // Without `key_pending_ix` (dropped in this transaction, rolled back), the cheapest plan of a
      // lookup by key would read `keyed_pending_ix` filtered by key — as a generic plan made on the
      // statistics of an empty queue did with the index there (docs/benchmark.md, "Soak").
      for (const table of ['outbox', 'inbox'] as const) {
        const index = `${testDatabase().table(schema, table).replace(/"$/, '')}_key_pending_ix"`;
        await runner.query(`DROP INDEX ${index}`);
      }
      await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      const reads: Record<string, number> = {};
      for (const [name, statement] of Object.entries(statements)) {
        await runner.query(`PREPARE window_reads AS ${statement.sql}`);
        const [{ 'QUERY PLAN': plan }] = await runner.query(
          `EXPLAIN (FORMAT JSON) EXECUTE window_reads (${statement.params.map(literal).join(', ')})`,
        );
        await runner.query('DEALLOCATE window_reads');
        reads[name] = JSON.stringify(plan).split('_keyed_pending_ix"').length - 1;
      }
      // The claims' windows (one scan each), nothing else.
      expect(reads).toEqual({ outbox: 1, relay: 1, pull: 1, completeMany: 0, completeOne: 0, relayCompletion: 0 });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('plans each claim statement once per connection: after five executions, PostgreSQL runs the generic plan', async () => {
    await testDatabase().truncate(db, schema, ['outbox', 'inbox']);
    await testDatabase().seedOutbox(db, schema, { key: null, count: 20 });
    await testDatabase().seedOutbox(db, schema, { key: 'k', count: 20 });
    const cursor = new WalkCursor();
    // Every claim of a busy worker differs in its values: batch, cursor, window.
    const claims = [
      dialect.claimOutbox(['d'], cursor.request(1, 60_000), { lock: false }).claim,
      dialect.claimOutbox(['d'], cursor.request(7, 60_000), { lock: false }).claim,
      dialect.claimOutbox(['d'], { ...cursor.request(3, 60_000), cursor: { stream: 'd', key: 'k' } }, { lock: false })
        .claim,
      dialect.claimPull('s', cursor.request(2, 60_000), { lock: false }).claim,
      dialect.claimInbox(['s', 't'], { ...cursor.request(4, 60_000), cursor: { stream: 's', key: '' } }).claim,
    ];
    const runner = db.createQueryRunner();
    try {
      const client = (await runner.connect()) as {
        query(config: { name: string; text: string; values: unknown[] }): Promise<unknown>;
      };
      await runner.startTransaction();
      const executions = new Map<string, number>();
      for (let round = 0; round < 12; round++) {
        for (const statement of claims) {
          await client.query({ name: statement.name!, text: statement.sql, values: [...statement.params] });
          executions.set(statement.name!, (executions.get(statement.name!) ?? 0) + 1);
        }
      }
      const plans = (await runner.query(
        `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name = ANY($1::text[]) ORDER BY name`,
        [[...new Set(claims.map((statement) => statement.name))]],
      )) as { name: string; generic_plans: string; custom_plans: string }[];
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
