import { performance } from 'node:perf_hooks';
import { createBenchSchema, rawPool, seedOutbox } from '../bench-schema.js';
import { sleep } from '../bench-stats.js';
import { settleBeforeRun } from '../bench-wal.js';
import { handWrittenStatements, newRawLoopStats, rawCycle } from '../raw-outbox.js';
import { RunClock, finishTableDrain, poolSizeOf, type DrainOutcome, type DrainRunner } from './drain-run.js';

/**
 * The raw SKIP LOCKED loop on QueueBox's table: `loops` loops of claim(slotsPerLoop) + one batched
 * fenced complete: a plain SKIP LOCKED loop when no row has a key, the raw head-of-key loop (a
 * row only when it is the head of its key) for the ordered drains. `slotsPerLoop` is 100, the
 * batch the common hand-written loop takes (`… ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED`).
 */
export const rawDrainRunner: DrainRunner = {
  name: 'raw loop',
  async run(ctx, spec) {
    const schema = await createBenchSchema(ctx.url, 'raw');
    await seedOutbox(ctx.admin, schema, spec.rows, spec.keys);
    const pool = rawPool(ctx.url, poolSizeOf(spec));
    const clock = new RunClock(ctx);
    let outcome: DrainOutcome;
    try {
      await Promise.all(Array.from({ length: spec.loops }, () => pool.query('SELECT 1')));
      await settleBeforeRun(ctx.admin);
      const sql = handWrittenStatements(schema, spec.keys > 0);
      const stats = newRawLoopStats();
      const deadline = performance.now() + spec.capMs;
      let sent = 0;
      clock.start();
      const loop = async (): Promise<void> => {
        while (sent < spec.rows && performance.now() < deadline) {
          const result = await rawCycle(pool, sql, spec.slotsPerLoop, () => Promise.resolve(), stats);
          sent += result.sent;
          // Every claimable head is held by another loop: back off 1 ms.
          if (result.claimed === 0 && sent < spec.rows) await sleep(1);
        }
      };
      await Promise.all(Array.from({ length: spec.loops }, loop));
      outcome = clock.stop(sent, spec.rows, `claim ${stats.claim.summary()}; empty claims ${stats.emptyClaims}`);
    } finally {
      await pool.end();
    }
    return finishTableDrain(ctx, schema, clock, outcome);
  },
};
