import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { f0 } from './bench-stats.js';
import { compareDrain, type CaseResult } from './peers/compare.js';
import { graphileDrainRunner } from './peers/graphile-worker.runner.js';
import { handOffChainRunner } from './peers/handoff-chain.runner.js';
import { pgBossDrainRunner } from './peers/pg-boss.runner.js';
import { queueBoxDefaultsRunner, queueBoxTunedRunner } from './peers/queuebox-drain.runner.js';
import { rawDrainRunner } from './peers/raw-drain.runner.js';

const RUNNERS = [
  rawDrainRunner,
  queueBoxDefaultsRunner,
  queueBoxTunedRunner,
  graphileDrainRunner(true),
  pgBossDrainRunner,
];
const ORDERED_RUNNERS = [
  rawDrainRunner,
  handOffChainRunner,
  queueBoxDefaultsRunner,
  graphileDrainRunner(true),
  graphileDrainRunner(false),
  pgBossDrainRunner,
];

/**
 * Unordered drain at each loops-equivalent: the raw loop (L loops claiming 100 rows per round
 * trip), QueueBox at its defaults and tuned to the raw loop's in-flight count, graphile-worker
 * (localQueue of 100·L) and pg-boss (fetch of 100).
 */
export async function peersDrainScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(
    `Drain side by side: ${f0(cfg.rows)} no-op messages, no keys; L loops-equivalent = L raw loops claiming ${cfg.slotsPerLoop} rows per round trip (${cfg.slotsPerLoop}·L in flight); QueueBox at its defaults (no concurrency or batchSize given) and tuned (concurrency ${cfg.slotsPerLoop}·L, batchSize ${cfg.slotsPerLoop}); graphile-worker concurrency and localQueue ${cfg.slotsPerLoop}·L; pg-boss fetch(batchSize ${cfg.slotsPerLoop}); pool L+2 each; ${cfg.reps} paired rep(s)`,
  );
  const results: CaseResult[] = [];
  for (const loops of cfg.loops) {
    results.push(
      await compareDrain(
        ctx,
        `drain, ${loops} loop(s)-equivalent`,
        { rows: cfg.rows, keys: 0, loops, slotsPerLoop: cfg.slotsPerLoop, capMs: cfg.runCapMs },
        RUNNERS,
        cfg.reps,
      ),
    );
  }
  return results;
}

/**
 * Ordered drains: QueueBox against the raw head-of-key loop, the floor of the hand-off design (its
 * statement in a bare loop per key, where the keys are few) and graphile-worker's named (serial)
 * queues, one per key.
 */
export async function orderedDrainScenario(ctx: BenchContext, config: BenchConfig): Promise<CaseResult[]> {
  const cfg = config.peers;
  ctx.heading(
    `Ordered drain: rows round-robin over K keys, ${cfg.orderedLoops} loops-equivalent (raw head-of-key loops of ${cfg.slotsPerLoop}; hand-off floor: QueueBox's completion statement in a bare loop, one connection per key; QueueBox at its defaults; graphile-worker concurrency ${cfg.orderedLoops * cfg.slotsPerLoop}); graphile-worker: queue_name = key, with localQueue and in its default mode; a run is cut after ${f0(cfg.orderedCapMs / 1000)} s and reports the rate of what it finished; ${cfg.reps} paired rep(s)`,
  );
  const results: CaseResult[] = [];
  for (const { keys, rows } of cfg.ordered) {
    results.push(
      await compareDrain(
        ctx,
        `ordered, ${keys} key(s), ${f0(rows)} rows`,
        { rows, keys, loops: cfg.orderedLoops, slotsPerLoop: cfg.slotsPerLoop, capMs: cfg.orderedCapMs },
        ORDERED_RUNNERS,
        cfg.reps,
      ),
    );
  }
  return results;
}
