import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { DEFAULT_INBOX_TABLE } from '../lib/queuebox.constants.js';
import { PullWorker, PullWorkerHost, type InboxMessage, type PullContext } from '../lib/index.js';
import { startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { benchPayload, createBenchSchema, dropBenchSchema, rawPool } from './bench-schema.js';
import { sleep } from './bench-stats.js';
import { compareDrain, type CaseResult } from './peers/compare.js';
import { RunClock, waitFor, waitForCount, type DrainOutcome, type DrainRunner, type DrainSpec } from './peers/drain-run.js';
import { RAW_LEASE_MS } from './raw-outbox.js';

const SOURCE = 'bench';

const inboxTable = (schema: string): string => `"${schema}"."${DEFAULT_INBOX_TABLE}"`;
const effectsTable = (schema: string): string => `"${schema}"."bench_effects"`;

/** A schema with QueueBox's tables, `rows` pending unordered inbox rows of source `bench`, and the business table. */
async function seedPull(ctx: BenchContext, rows: number): Promise<string> {
  const schema = await createBenchSchema(ctx.url, 'pull');
  await ctx.admin.query(`CREATE TABLE ${effectsTable(schema)} (seq integer PRIMARY KEY, message_id bigint NOT NULL)`);
  await ctx.admin.query(
    `INSERT INTO ${inboxTable(schema)} (source, idempotency_key, ordering_key, headers, payload)
     SELECT $1, 'idem-' || g, NULL, '{}'::jsonb, json_build_object('seq', g, 'pad', $3::text)::text FROM generate_series(0, $2::integer - 1) AS g`,
    [SOURCE, rows, benchPayload(0).pad],
  );
  await ctx.admin.query(`VACUUM ANALYZE ${inboxTable(schema)}`);
  return schema;
}

async function processedCount(admin: pg.Pool, schema: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${inboxTable(schema)} WHERE state = 'processed'`);
  return rows[0].n;
}

/**
 * QueueBox's pull worker: `@PullWorker('bench', { concurrency })` whose handler inserts one row
 * into a business table with the transaction QueueBox opened; QueueBox completes the inbox row in
 * that transaction and commits. Every other option at its default.
 */
const queueBoxPullRunner: DrainRunner = {
  name: 'QueueBox',
  async run(ctx, spec) {
    const schema = await seedPull(ctx, spec.rows);
    const clock = new RunClock(ctx.postmasterPid);
    let handled = 0;

    @PullWorker(SOURCE, { concurrency: spec.loops * spec.slotsPerLoop })
    @Injectable()
    class BenchPullWorker extends PullWorkerHost<{ seq: number }> {
      async handle(message: InboxMessage<{ seq: number }>, { manager }: PullContext): Promise<void> {
        clock.start();
        await manager.query(`INSERT INTO ${effectsTable(schema)} (seq, message_id) VALUES ($1, $2)`, [message.payload.seq, message.id]);
        handled += 1;
      }
    }

    let outcome: DrainOutcome | undefined;
    const app = await startBenchApp({ url: ctx.url, schema, poolSize: spec.loops * spec.slotsPerLoop + 2, queuebox: {}, providers: [BenchPullWorker] });
    try {
      const deadline = performance.now() + spec.capMs;
      await waitFor(() => handled >= spec.rows, deadline);
      const done = await waitForCount(() => processedCount(ctx.admin, schema), spec.rows, deadline, 2);
      outcome = clock.stop(done, spec.rows, `@PullWorker concurrency ${spec.loops * spec.slotsPerLoop}, pool ${spec.loops * spec.slotsPerLoop + 2}; ${handled} handler calls`);
    } finally {
      await app.close();
    }
    await dropBenchSchema(ctx.admin, schema);
    return outcome;
  },
};

/**
 * The raw pull loop: one claim of `concurrency` rows (SKIP LOCKED, its own statement), then each
 * row in its own transaction — the business INSERT and the fenced completion (state, token, live
 * lease) — all rows at once on a pool of concurrency + 2, then the next claim.
 */
const rawPullRunner: DrainRunner = {
  name: 'raw loop',
  async run(ctx, spec) {
    const schema = await seedPull(ctx, spec.rows);
    const concurrency = spec.loops * spec.slotsPerLoop;
    const pool = rawPool(ctx.url, concurrency + 2);
    const t = inboxTable(schema);
    const claim = `
WITH cand AS (
  SELECT id FROM ${t} WHERE source = $3 AND state = 'pending' AND ordering_key IS NULL AND next_attempt_at <= statement_timestamp()
  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
)
UPDATE ${t} m SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
  lease_expires_at = statement_timestamp() + $2::integer * interval '1 millisecond', attempts = m.attempts + 1
FROM cand WHERE m.id = cand.id
RETURNING m.id, m.claim_token, m.payload`;
    const complete = `UPDATE ${t} SET state = 'processed', finished_at = statement_timestamp(), lease_expires_at = NULL
WHERE id = $1 AND state = 'processing' AND claim_token = $2 AND lease_expires_at > statement_timestamp() RETURNING id`;
    try {
      await Promise.all(Array.from({ length: concurrency }, () => pool.query('SELECT 1')));
      const clock = new RunClock(ctx.postmasterPid);
      const deadline = performance.now() + spec.capMs;
      let done = 0;
      let claims = 0;
      clock.start();
      while (done < spec.rows && performance.now() < deadline) {
        const { rows } = await pool.query<{ id: string; claim_token: string; payload: string }>(claim, [concurrency, RAW_LEASE_MS, SOURCE]);
        claims += 1;
        if (rows.length === 0) {
          await sleep(1);
          continue;
        }
        await Promise.all(
          rows.map(async (row) => {
            const client = await pool.connect();
            try {
              await client.query('BEGIN');
              const { seq } = JSON.parse(row.payload) as { seq: number };
              await client.query(`INSERT INTO ${effectsTable(schema)} (seq, message_id) VALUES ($1, $2)`, [seq, row.id]);
              const fenced = await client.query(complete, [row.id, row.claim_token]);
              if (fenced.rowCount !== 1) throw new Error(`raw pull: claim of row ${row.id} lost`);
              await client.query('COMMIT');
              done += 1;
            } catch (error) {
              await client.query('ROLLBACK');
              throw error;
            } finally {
              client.release();
            }
          }),
        );
      }
      return clock.stop(done, spec.rows, `claims of ${concurrency} + one transaction per message (INSERT + fenced UPDATE), pool ${concurrency + 2}; ${claims} claims`);
    } finally {
      await pool.end();
      await dropBenchSchema(ctx.admin, schema);
    }
  },
};

/** Pull workers completing in the business transaction against a raw loop with one fenced commit per message. */
export async function pullScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(`Pull workers: ${cfg.pull.rows} unordered inbox rows, each handled by one business INSERT committed with its completion; concurrency ${cfg.pull.concurrency}; ${cfg.reps} paired rep(s)`);
  const spec: DrainSpec = { rows: cfg.pull.rows, keys: 0, loops: 1, slotsPerLoop: cfg.pull.concurrency, capMs: cfg.runCapMs };
  return [await compareDrain(ctx, `pull, concurrency ${cfg.pull.concurrency}`, spec, [rawPullRunner, queueBoxPullRunner], cfg.reps)];
}
