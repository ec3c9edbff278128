import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import graphileWorker from 'graphile-worker';
import type pg from 'pg';
import { benchPayload } from '../bench-schema.js';
import type { BenchContext } from '../bench-context.js';
import { settleBeforeRun } from '../bench-wal.js';
import {
  RunClock,
  concurrencyOf,
  poolSizeOf,
  waitFor,
  waitForCount,
  type DrainOutcome,
  type DrainRunner,
  type DrainSpec,
} from './drain-run.js';

const { Logger, run, runMigrations } = graphileWorker;

/** graphile-worker's logs stay out of the bench's output (errors still throw through its promises). */
export const quietGraphileLogger = new Logger(() => () => undefined);

/** A fresh graphile-worker schema with its own migrations. */
export async function createGraphileSchema(url: string): Promise<string> {
  const schema = `gw_${randomBytes(4).toString('hex')}`;
  await runMigrations({ connectionString: url, schema, logger: quietGraphileLogger });
  return schema;
}

/**
 * Inserts `total` jobs of task `noop` in one `add_jobs` call, the bench payload, and with
 * `keys` > 0 the queue_name `key-<n>` round-robin (a named queue runs its jobs one at a time,
 * in order: graphile-worker's per-key order).
 */
export async function seedGraphileJobs(admin: pg.Pool, schema: string, total: number, keys: number): Promise<void> {
  const pad = benchPayload(0).pad;
  await admin.query(
    `SELECT count(*) FROM "${schema}".add_jobs(ARRAY(
       SELECT ROW('noop', json_build_object('seq', g, 'pad', $3::text), CASE WHEN $1::integer = 0 THEN NULL ELSE 'key-' || (g % GREATEST($1::integer, 1)) END,
                  NULL, NULL, NULL, NULL, NULL)::"${schema}".job_spec
       FROM generate_series(0, $2::integer - 1) AS g ORDER BY g))`,
    [keys, total, pad],
  );
  await admin.query(`VACUUM ANALYZE "${schema}"._private_jobs`);
}

export async function remainingGraphileJobs(admin: pg.Pool, schema: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::integer AS n FROM "${schema}"._private_jobs`);
  return rows[0].n;
}

/**
 * graphile-worker 0.17 configured for throughput: concurrency = loops × slotsPerLoop (100 per
 * loop-equivalent, the raw loop's in-flight count), its own pool of loops + 2 connections, and
 * with `localQueue` a local queue of `concurrency` jobs (one fetch locks a batch; workers take
 * jobs from memory), else its default mode (each worker fetches its
 * own job). Keyed rows go to the named queue `key-<n>`: graphile-worker runs a named queue's jobs
 * one at a time, in order. The clocks start as the runner starts and stop when the jobs table is
 * empty (graphile-worker deletes a job when it completes).
 */
export function graphileDrainRunner(localQueue: boolean): DrainRunner {
  return {
    name: localQueue ? 'graphile-worker' : 'graphile default',
    // Its default mode on a single serial queue ran at about 2 jobs/s in our runs: skipped there, to keep the run short.
    skip: (spec) =>
      !localQueue && spec.keys === 1
        ? 'default mode on one serial queue ran at ~2 jobs/s in a trial run (most workers idle until their poll); not repeated'
        : undefined,
    run: (ctx, spec) => graphileDrain(ctx, spec, localQueue),
  };
}

async function graphileDrain(ctx: BenchContext, spec: DrainSpec, localQueue: boolean): Promise<DrainOutcome> {
  const schema = await createGraphileSchema(ctx.url);
  await seedGraphileJobs(ctx.admin, schema, spec.rows, spec.keys);
  const concurrency = concurrencyOf(spec);
  let executed = 0;
  await settleBeforeRun(ctx.admin);
  const clock = new RunClock(ctx);
  clock.start();
  const runner = await run({
    connectionString: ctx.url,
    schema,
    concurrency,
    maxPoolSize: poolSizeOf(spec),
    noHandleSignals: true,
    logger: quietGraphileLogger,
    taskList: {
      noop: () => {
        executed += 1;
      },
    },
    ...(localQueue ? { preset: { worker: { localQueue: { size: concurrency } } } } : {}),
  });
  const deadline = performance.now() + spec.capMs;
  let outcome: DrainOutcome;
  try {
    await waitFor(() => executed >= spec.rows, deadline);
    const completed = await waitForCount(
      async () => spec.rows - (await remainingGraphileJobs(ctx.admin, schema)),
      spec.rows,
      deadline,
      2,
    );
    outcome = clock.stop(
      completed,
      spec.rows,
      `concurrency ${concurrency}, ${localQueue ? `localQueue.size ${concurrency}` : 'default mode'}${spec.keys > 0 ? ', queue_name = key' : ''}, maxPoolSize ${poolSizeOf(spec)}; ${executed} task calls`,
    );
  } finally {
    await runner.stop();
  }
  try {
    return await clock.addWal(outcome);
  } finally {
    await ctx.admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  }
}
