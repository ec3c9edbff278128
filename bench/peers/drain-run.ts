import { performance } from 'node:perf_hooks';
import type { BenchContext } from '../bench-context.js';
import { countByState, dropBenchSchema } from '../bench-schema.js';
import { cpuNow, cpuPerMessage, sleep, type CpuReading } from '../bench-stats.js';
import { WalMeter, type WalPerMessage } from '../bench-wal.js';

/**
 * One drain of a pre-inserted backlog of no-op messages. `loops` loops-equivalent: the raw loop
 * runs `loops` loops claiming `slotsPerLoop` rows (100: the LIMIT of the common hand-written
 * SKIP LOCKED loop) per round trip, so `loops × slotsPerLoop` rows are in flight; the tuned
 * systems run that many in flight; QueueBox's defaults run with no concurrency or batch given;
 * every system gets a pool of `loops + 2` connections.
 */
export interface DrainSpec {
  rows: number;
  /** 0: no keys (unordered); else the rows go round-robin over this many keys. */
  keys: number;
  loops: number;
  slotsPerLoop: number;
  /** Longest the run may take; past it the run reports the rate of what it finished. */
  capMs: number;
}

export const concurrencyOf = (spec: DrainSpec): number => spec.loops * spec.slotsPerLoop;
export const poolSizeOf = (spec: DrainSpec): number => spec.loops + 2;

/** What one system did in one drain. */
export interface DrainOutcome {
  msgsPerSecond: number;
  ms: number;
  done: number;
  /** False when the run was cut at `capMs`. */
  finished: boolean;
  nodeUsPerMsg: number;
  postgresUsPerMsg: number | undefined;
  /** One line of system-specific detail (statement timers, configuration). */
  detail: string;
  /** WAL per message (filled in once the system's connections have closed); undefined when not measured. */
  wal?: WalPerMessage;
}

/** A system under test: runs one drain in its own schema and cleans up after itself. */
export interface DrainRunner {
  name: string;
  /** Why the system does not run this spec (e.g. it has no per-key order), or undefined. */
  skip?(spec: DrainSpec): string | undefined;
  run(ctx: BenchContext, spec: DrainSpec): Promise<DrainOutcome>;
}

/**
 * The clocks of a run: wall time and CPU from `start()` to `stop()`. Start is synchronous so that
 * a runner can start it inside a callback at the moment its first claim begins.
 */
export class RunClock {
  private startedAt?: number;
  private cpu0?: CpuReading;
  private readonly postmasterPid: number | undefined;
  private readonly wal: WalMeter;

  constructor(ctx: BenchContext) {
    this.postmasterPid = ctx.postmasterPid;
    this.wal = new WalMeter(ctx.admin);
  }

  start(): void {
    if (this.startedAt !== undefined) return;
    this.cpu0 = cpuNow(this.postmasterPid);
    this.startedAt = performance.now();
    this.wal.start();
  }

  get started(): boolean {
    return this.startedAt !== undefined;
  }

  /** Stops the clocks; `done` messages were finished between start and now. */
  stop(done: number, rows: number, detail: string): DrainOutcome {
    const ms = performance.now() - (this.startedAt ?? performance.now());
    const cpu = cpuPerMessage(this.cpu0 ?? cpuNow(this.postmasterPid), cpuNow(this.postmasterPid), done);
    this.wal.stop();
    return {
      msgsPerSecond: ms > 0 ? (done / ms) * 1000 : 0,
      ms,
      done,
      finished: done >= rows,
      nodeUsPerMsg: cpu.nodeUs,
      postgresUsPerMsg: cpu.postgresUs,
      detail,
    };
  }

  /** Adds the WAL per message to `outcome`; call after the system's connections have closed (see WalMeter). */
  async addWal(outcome: DrainOutcome): Promise<DrainOutcome> {
    try {
      outcome.wal = await this.wal.perMessage(outcome.done);
    } catch (error) {
      outcome.detail += `; WAL not measured: ${(error as Error).message}`;
    }
    return outcome;
  }
}

/** Polls `count` every `everyMs` until it reaches `target` or `deadline` (performance.now()) passes; returns the last count. */
export async function waitForCount(
  count: () => Promise<number>,
  target: number,
  deadline: number,
  everyMs = 5,
): Promise<number> {
  let last = await count();
  while (last < target && performance.now() < deadline) {
    await sleep(everyMs);
    last = await count();
  }
  return last;
}

/** Resolves when `isDone()` holds (checked every `everyMs`) or at `deadline`. */
export async function waitFor(isDone: () => boolean, deadline: number, everyMs = 2): Promise<void> {
  while (!isDone() && performance.now() < deadline) await sleep(everyMs);
}

/**
 * The end of a drain on QueueBox's table (the raw loop's and QueueBox's): the WAL of the run, the
 * rows by state (every row should be sent), then the schema dropped whatever happened.
 */
export async function finishTableDrain(
  ctx: BenchContext,
  schema: string,
  clock: RunClock,
  outcome: DrainOutcome,
): Promise<DrainOutcome> {
  try {
    await clock.addWal(outcome);
    outcome.detail += `; states ${JSON.stringify(await countByState(ctx.admin, schema))}`;
    return outcome;
  } finally {
    await dropBenchSchema(ctx.admin, schema);
  }
}
