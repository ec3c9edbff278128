import { performance } from 'node:perf_hooks';
import { startBenchApp } from '../bench-app.js';
import { countByState, createBenchSchema, dropBenchSchema, seedOutbox } from '../bench-schema.js';
import { RunClock, concurrencyOf, poolSizeOf, waitFor, type DrainRunner, type DrainOutcome } from './drain-run.js';

/**
 * QueueBox as a user runs it: a Nest application context, `outbox.concurrency` = loops ×
 * slotsPerLoop, every other option at its default (batchSize min(50, concurrency)). The clocks
 * start as the first claim begins (Nest's bootstrap is not the drain) and stop when completions
 * have marked every row sent.
 */
export const queueBoxDrainRunner: DrainRunner = {
  name: 'QueueBox',
  async run(ctx, spec) {
    const schema = await createBenchSchema(ctx.url, 'qb');
    await seedOutbox(ctx.admin, schema, spec.rows, spec.keys);
    const clock = new RunClock(ctx.postmasterPid);
    let outcome: DrainOutcome | undefined;
    const app = await startBenchApp({
      url: ctx.url,
      schema,
      poolSize: poolSizeOf(spec),
      queuebox: { outbox: { concurrency: concurrencyOf(spec) } },
      prepare: (_publisher, timers) => {
        timers.onFirstClaim = () => clock.start();
      },
    });
    try {
      const deadline = performance.now() + spec.capMs;
      await waitFor(() => app.timers.sent >= spec.rows, deadline);
      const { timers } = app;
      outcome = clock.stop(timers.sent, spec.rows, `claim ${timers.claim.summary()}; rows per claim ${timers.claim.sizeHistogram()}; completeMany ${timers.completeMany.summary()}`);
    } finally {
      await app.close();
    }
    outcome.detail += `; states ${JSON.stringify(await countByState(ctx.admin, schema))}`;
    await dropBenchSchema(ctx.admin, schema);
    return outcome;
  },
};
