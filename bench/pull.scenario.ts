import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { DEFAULT_INBOX_TABLE } from '../lib/shared/queuebox.constants.js';
import { PullWorker, PullWorkerHost, type InboxMessage, type PullContext } from '../lib/index.js';
import { startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { benchPayload, createBenchSchema, dropBenchSchema, rawPool } from './bench-schema.js';
import { sleep } from './bench-stats.js';
import { settleBeforeRun } from './bench-wal.js';
import { compareDrain, type CaseResult } from './peers/compare.js';
import {
  RunClock,
  waitFor,
  waitForCount,
  type DrainOutcome,
  type DrainRunner,
  type DrainSpec,
} from './peers/drain-run.js';
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
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM ${inboxTable(schema)} WHERE state = 'processed'`,
  );
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
    await settleBeforeRun(ctx.admin);
    const clock = new RunClock(ctx);
    let handled = 0;

    @PullWorker(SOURCE, { concurrency: spec.loops * spec.slotsPerLoop })
    @Injectable()
    class BenchPullWorker extends PullWorkerHost<{ seq: number }> {
      async handle(message: InboxMessage<{ seq: number }>, { manager }: PullContext): Promise<void> {
        clock.start();
        await manager.query(`INSERT INTO ${effectsTable(schema)} (seq, message_id) VALUES ($1, $2)`, [
          message.payload.seq,
          message.id,
        ]);
        handled += 1;
      }
    }

    let outcome: DrainOutcome | undefined;
    const app = await startBenchApp({
      url: ctx.url,
      schema,
      poolSize: spec.loops * spec.slotsPerLoop + 2,
      queuebox: {},
      providers: [BenchPullWorker],
    });
    try {
      const deadline = performance.now() + spec.capMs;
      await waitFor(() => handled >= spec.rows, deadline);
      const done = await waitForCount(() => processedCount(ctx.admin, schema), spec.rows, deadline, 2);
      outcome = clock.stop(
        done,
        spec.rows,
        `@PullWorker concurrency ${spec.loops * spec.slotsPerLoop}, pool ${spec.loops * spec.slotsPerLoop + 2}; ${handled} handler calls`,
      );
    } finally {
      await app.close();
    }
    try {
      return await clock.addWal(outcome);
    } finally {
      await dropBenchSchema(ctx.admin, schema);
    }
  },
};

/** The raw pull loop's statements on `schema`'s inbox (claims of source `bench`). */
function rawPullStatements(schema: string): { claim: string; complete: string; effect: string } {
  const t = inboxTable(schema);
  return {
    claim: `
WITH cand AS (
  SELECT id FROM ${t} WHERE source = $3 AND state = 'pending' AND ordering_key IS NULL AND next_attempt_at <= statement_timestamp()
  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
)
UPDATE ${t} m SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
  lease_expires_at = statement_timestamp() + $2::integer * interval '1 millisecond', attempts = m.attempts + 1
FROM cand WHERE m.id = cand.id
RETURNING m.id, m.claim_token, m.payload`,
    complete: `UPDATE ${t} SET state = 'processed', finished_at = statement_timestamp(), lease_expires_at = NULL
WHERE id = $1 AND state = 'processing' AND claim_token = $2 AND lease_expires_at > statement_timestamp() RETURNING id`,
    effect: `INSERT INTO ${effectsTable(schema)} (seq, message_id) VALUES ($1, $2)`,
  };
}

/** One message of the raw pull loop: the business INSERT and the fenced completion, in one transaction. */
type RawTransaction = (
  work: (query: (sql: string, params: unknown[]) => Promise<{ rowCount: number }>) => Promise<void>,
) => Promise<void>;

/**
 * The raw pull loop: one claim of `concurrency` rows (SKIP LOCKED, its own statement), then each
 * row in its own transaction — the business INSERT and the fenced completion (state, token, live
 * lease) — all rows at once on a pool of concurrency + 2, then the next claim. `transaction` says
 * how a transaction runs: on node-postgres directly, or through TypeORM's `DataSource.transaction`
 * (what a user's business code runs on, and what QueueBox gives a handler).
 */
function rawPullRunner(
  name: string,
  open: (
    url: string,
    poolSize: number,
  ) => Promise<{
    transaction: RawTransaction;
    claim: (sql: string, params: unknown[]) => Promise<{ id: string; claim_token: string; payload: string }[]>;
    close(): Promise<void>;
  }>,
  how: string,
): DrainRunner {
  return {
    name,
    async run(ctx, spec) {
      const schema = await seedPull(ctx, spec.rows);
      const concurrency = spec.loops * spec.slotsPerLoop;
      const db = await open(ctx.url, concurrency + 2);
      const sql = rawPullStatements(schema);
      const clock = new RunClock(ctx);
      let outcome: DrainOutcome;
      try {
        await settleBeforeRun(ctx.admin);
        const deadline = performance.now() + spec.capMs;
        let done = 0;
        let claims = 0;
        clock.start();
        while (done < spec.rows && performance.now() < deadline) {
          const rows = await db.claim(sql.claim, [concurrency, RAW_LEASE_MS, SOURCE]);
          claims += 1;
          if (rows.length === 0) {
            await sleep(1);
            continue;
          }
          await Promise.all(
            rows.map((row) =>
              db.transaction(async (query) => {
                const { seq } = JSON.parse(row.payload) as { seq: number };
                await query(sql.effect, [seq, row.id]);
                const fenced = await query(sql.complete, [row.id, row.claim_token]);
                if (fenced.rowCount !== 1) throw new Error(`raw pull: claim of row ${row.id} lost`);
                done += 1;
              }),
            ),
          );
        }
        outcome = clock.stop(
          done,
          spec.rows,
          `claims of ${concurrency} + one ${how} transaction per message (INSERT + fenced UPDATE), pool ${concurrency + 2}; ${claims} claims`,
        );
      } finally {
        await db.close();
      }
      try {
        return await clock.addWal(outcome);
      } finally {
        await dropBenchSchema(ctx.admin, schema);
      }
    },
  };
}

/** The raw loop on node-postgres: BEGIN, INSERT, fenced UPDATE, COMMIT on one pooled client. */
const rawPgPullRunner = rawPullRunner(
  'raw loop',
  async (url, poolSize) => {
    const pool = rawPool(url, poolSize);
    await Promise.all(Array.from({ length: poolSize - 2 }, () => pool.query('SELECT 1')));
    return {
      claim: async (sql, params) =>
        (await pool.query<{ id: string; claim_token: string; payload: string }>(sql, params)).rows,
      async transaction(work) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await work(async (sql, params) => ({ rowCount: (await client.query(sql, params)).rowCount ?? 0 }));
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  },
  'node-postgres',
);

/** The same raw loop with each transaction run by TypeORM's `DataSource.transaction` (and `manager.query`). */
const rawTypeOrmPullRunner = rawPullRunner(
  'raw, TypeORM',
  async (url, poolSize) => {
    const dataSource = await new DataSource({ type: 'postgres', url, poolSize }).initialize();
    await Promise.all(Array.from({ length: poolSize - 2 }, () => dataSource.query('SELECT 1')));
    return {
      // An UPDATE answers [rows, count].
      claim: async (sql, params) =>
        ((await dataSource.query(sql, params)) as [{ id: string; claim_token: string; payload: string }[], number])[0],
      transaction: (work) =>
        dataSource.transaction(async (manager) => {
          // A plain `manager.query` (no structured result): rows of INSERT, [rows, count] of UPDATE.
          await work(async (sql, params) => {
            const result = (await manager.query(sql, params)) as unknown[];
            return { rowCount: Array.isArray(result[0]) ? (result[1] as number) : result.length };
          });
        }),
      close: () => dataSource.destroy(),
    };
  },
  'TypeORM',
);

/** Pull workers completing in the business transaction against a raw loop with one fenced commit per message. */
export async function pullScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(
    `Pull workers: ${cfg.pull.rows} unordered inbox rows, each handled by one business INSERT committed with its completion; concurrency ${cfg.pull.concurrency}; ${cfg.reps} paired rep(s)`,
  );
  const spec: DrainSpec = {
    rows: cfg.pull.rows,
    keys: 0,
    loops: 1,
    slotsPerLoop: cfg.pull.concurrency,
    capMs: cfg.runCapMs,
  };
  return [
    await compareDrain(
      ctx,
      `pull, concurrency ${cfg.pull.concurrency}`,
      spec,
      [rawPgPullRunner, rawTypeOrmPullRunner, queueBoxPullRunner],
      cfg.reps,
    ),
  ];
}
