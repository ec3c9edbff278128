import { performance } from 'node:perf_hooks';
import { countByState, createBenchSchema, dropBenchSchema, rawPool, seedOutbox } from '../bench-schema.js';
import { sleep } from '../bench-stats.js';
import { handWrittenStatements, newRawLoopStats, rawCycle } from '../raw-outbox.js';
import { RunClock, poolSizeOf, type DrainRunner } from './drain-run.js';

/**
 * The raw SKIP LOCKED loop on QueueBox's table: `loops` loops of claim(slotsPerLoop) + one batched
 * fenced complete: a plain SKIP LOCKED loop when no row has a key, the raw head-of-key loop (a
 * row only when it is the head of its key) for the ordered drains.
 */
export const rawDrainRunner: DrainRunner = {
  name: 'raw loop',
  async run(ctx, spec) {
    const schema = await createBenchSchema(ctx.url, 'raw');
    await seedOutbox(ctx.admin, schema, spec.rows, spec.keys);
    const pool = rawPool(ctx.url, poolSizeOf(spec));
    try {
      await Promise.all(Array.from({ length: spec.loops }, () => pool.query('SELECT 1')));
      const sql = handWrittenStatements(schema, spec.keys > 0);
      const stats = newRawLoopStats();
      const clock = new RunClock(ctx.postmasterPid);
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
      const states = await countByState(ctx.admin, schema);
      return clock.stop(sent, spec.rows, `claim ${stats.claim.summary()}; empty claims ${stats.emptyClaims}; states ${JSON.stringify(states)}`);
    } finally {
      await pool.end();
      await dropBenchSchema(ctx.admin, schema);
    }
  },
};
