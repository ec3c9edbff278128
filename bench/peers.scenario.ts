import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { f0 } from './bench-stats.js';
import { compareDrain, type CaseResult } from './peers/compare.js';
import { graphileDrainRunner } from './peers/graphile-worker.runner.js';
import { pgBossDrainRunner } from './peers/pg-boss.runner.js';
import { queueBoxDrainRunner } from './peers/queuebox-drain.runner.js';
import { rawDrainRunner } from './peers/raw-drain.runner.js';

const RUNNERS = [rawDrainRunner, queueBoxDrainRunner, graphileDrainRunner(true), pgBossDrainRunner];
const ORDERED_RUNNERS = [rawDrainRunner, queueBoxDrainRunner, graphileDrainRunner(true), graphileDrainRunner(false), pgBossDrainRunner];

/** Unordered drain at each loops-equivalent: QueueBox, the raw loop, graphile-worker (localQueue) and pg-boss (batch fetch). */
export async function peersDrainScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(
    `Drain side by side: ${f0(cfg.rows)} no-op messages, no keys; L loops-equivalent = L raw loops of ${cfg.slotsPerLoop} rows = concurrency ${cfg.slotsPerLoop}·L elsewhere; pool L+2 each; ${cfg.reps} paired rep(s)`,
  );
  const results: CaseResult[] = [];
  for (const loops of cfg.loops) {
    results.push(await compareDrain(ctx, `drain, ${loops} loop(s)-equivalent`, { rows: cfg.rows, keys: 0, loops, slotsPerLoop: cfg.slotsPerLoop, capMs: cfg.runCapMs }, RUNNERS, cfg.reps));
  }
  return results;
}

/** Ordered drains: QueueBox against the raw head-of-key loop and graphile-worker's named (serial) queues, one per key. */
export async function orderedDrainScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(
    `Ordered drain: rows round-robin over K keys, ${cfg.orderedLoops} loops-equivalent (concurrency ${cfg.orderedLoops * cfg.slotsPerLoop}); graphile-worker: queue_name = key, with localQueue and in its default mode; a run is cut after ${f0(cfg.orderedCapMs / 1000)} s and reports the rate of what it finished; ${cfg.reps} paired rep(s)`,
  );
  const results: CaseResult[] = [];
  for (const { keys, rows } of cfg.ordered) {
    results.push(
      await compareDrain(ctx, `ordered, ${keys} key(s), ${f0(rows)} rows`, { rows, keys, loops: cfg.orderedLoops, slotsPerLoop: cfg.slotsPerLoop, capMs: cfg.orderedCapMs }, ORDERED_RUNNERS, cfg.reps),
    );
  }
  return results;
}
