import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import PgBoss from 'pg-boss';
import { benchPayload } from '../bench-schema.js';
import { sleep } from '../bench-stats.js';
import { settleBeforeRun } from '../bench-wal.js';
import { RunClock, poolSizeOf, type DrainOutcome, type DrainRunner } from './drain-run.js';

const QUEUE = 'noop';
const INSERT_CHUNK = 5_000;

/**
 * pg-boss 10 with batch fetch: `loops` loops of `fetch(batchSize: slotsPerLoop)` + one
 * `complete(ids)`, back to back (its `work()` sleeps out the rest of a 0.5 s minimum poll
 * interval after every batch, which would measure the timer, not the queue). Own schema, a pool of
 * loops + 2, no supervisor or scheduler. pg-boss has no per-key order: unordered drains only.
 */
export const pgBossDrainRunner: DrainRunner = {
  name: 'pg-boss',
  skip: (spec) =>
    spec.keys > 0
      ? 'no per-key FIFO (its singleton policies are one active job per queue or per singletonKey, not an ordered stream)'
      : undefined,
  async run(ctx, spec) {
    const schema = `pgb_${randomBytes(4).toString('hex')}`;
    const boss = new PgBoss({
      connectionString: ctx.url,
      schema,
      max: poolSizeOf(spec),
      supervise: false,
      schedule: false,
      migrate: true,
    });
    boss.on('error', (error: Error) => console.error(`pg-boss: ${error.message}`));
    await boss.start();
    const clock = new RunClock(ctx);
    let outcome: DrainOutcome;
    try {
      await boss.createQueue(QUEUE);
      for (let first = 0; first < spec.rows; first += INSERT_CHUNK) {
        const jobs = Array.from({ length: Math.min(INSERT_CHUNK, spec.rows - first) }, (_, i) => ({
          name: QUEUE,
          data: benchPayload(first + i),
        }));
        await boss.insert(jobs);
      }
      await ctx.admin.query(`VACUUM ANALYZE "${schema}".job`);
      await settleBeforeRun(ctx.admin);
      const deadline = performance.now() + spec.capMs;
      let done = 0;
      let fetches = 0;
      clock.start();
      const loop = async (): Promise<void> => {
        while (done < spec.rows && performance.now() < deadline) {
          const jobs = await boss.fetch(QUEUE, { batchSize: spec.slotsPerLoop });
          fetches += 1;
          if (jobs.length === 0) {
            await sleep(1);
            continue;
          }
          await boss.complete(
            QUEUE,
            jobs.map((job) => job.id),
          );
          done += jobs.length;
        }
      };
      await Promise.all(Array.from({ length: spec.loops }, loop));
      outcome = clock.stop(
        done,
        spec.rows,
        `${spec.loops} loops of fetch(batchSize ${spec.slotsPerLoop}) + complete(ids), max ${poolSizeOf(spec)} connections; ${fetches} fetches`,
      );
    } finally {
      await boss.stop({ graceful: false, wait: true, close: true });
    }
    try {
      return await clock.addWal(outcome);
    } finally {
      await ctx.admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  },
};
