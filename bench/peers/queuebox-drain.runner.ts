import { performance } from 'node:perf_hooks';
import { startBenchApp } from '../bench-app.js';
import { createBenchSchema, seedOutbox } from '../bench-schema.js';
import { consumerAsyncCommit } from '../bench-config.js';
import { settleBeforeRun } from '../bench-wal.js';
import type { QueueBoxModuleOptions } from '../../lib/index.js';
import {
  RunClock,
  finishTableDrain,
  concurrencyOf,
  poolSizeOf,
  waitFor,
  type DrainRunner,
  type DrainOutcome,
  type DrainSpec,
} from './drain-run.js';

/** How a QueueBox drain runner configures the outbox for a spec, and how its detail line names that. */
interface QueueBoxSetup {
  name: string;
  outbox(spec: DrainSpec): NonNullable<QueueBoxModuleOptions['outbox']>;
  describe(spec: DrainSpec): string;
}

/**
 * QueueBox as a user runs it: a Nest application context with a pool of loops + 2 connections and
 * the outbox configured by `setup`. The clocks start as the first claim begins (Nest's bootstrap
 * is not the drain) and stop when completions have marked every row sent.
 */
function queueBoxDrainRunner(setup: QueueBoxSetup): DrainRunner {
  return {
    name: setup.name,
    async run(ctx, spec) {
      const schema = await createBenchSchema(ctx.url, 'qb');
      await seedOutbox(ctx.admin, schema, spec.rows, spec.keys);
      await settleBeforeRun(ctx.admin);
      const clock = new RunClock(ctx);
      let outcome: DrainOutcome | undefined;
      const app = await startBenchApp({
        url: ctx.url,
        schema,
        poolSize: poolSizeOf(spec),
        asyncCommit: consumerAsyncCommit(),
        queuebox: { outbox: setup.outbox(spec) },
        prepare: (_publisher, timers) => {
          timers.onFirstClaim = () => clock.start();
        },
      });
      try {
        const deadline = performance.now() + spec.capMs;
        await waitFor(() => app.timers.sent >= spec.rows, deadline);
        const { timers } = app;
        outcome = clock.stop(
          timers.sent,
          spec.rows,
          `${setup.describe(spec)}${consumerAsyncCommit() ? ', EXPERIMENT: synchronous_commit off' : ''}; claim ${timers.claim.summary()}; rows per claim ${timers.claim.sizeHistogram()}; completeMany ${timers.completeMany.summary()}`,
        );
      } finally {
        await app.close();
      }
      return finishTableDrain(ctx, schema, clock, outcome);
    },
  };
}

/**
 * QueueBox at its documented defaults: no `concurrency` and no `batchSize` given, what a user gets
 * without tuning (where the outbox adapts its in-flight count and claim size, it adapts here).
 */
export const queueBoxDefaultsRunner = queueBoxDrainRunner({
  name: 'QueueBox',
  outbox: () => ({}),
  describe: () => 'defaults (no concurrency or batchSize given)',
});

/** QueueBox tuned to the raw loop's in-flight count: `concurrency` loops × 100, `batchSize` 100 (shows what the in-flight count is worth). */
export const queueBoxTunedRunner = queueBoxDrainRunner({
  name: 'QueueBox tuned',
  outbox: (spec) => ({ concurrency: concurrencyOf(spec), batchSize: Math.min(spec.slotsPerLoop, concurrencyOf(spec)) }),
  describe: (spec) =>
    `tuned: concurrency ${concurrencyOf(spec)}, batchSize ${Math.min(spec.slotsPerLoop, concurrencyOf(spec))}`,
});
