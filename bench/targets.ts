import type { BacklogResult } from './backlog.scenario.js';
import type { BenchContext } from './bench-context.js';
import { f0, f1, f2 } from './bench-stats.js';
import type { CaseResult, SystemMedians } from './peers/compare.js';
import type { ProducerResult } from './producer.scenario.js';

/** What a run measured, for the closing summary of issue 21's targets. */
export interface RunResults {
  cases: CaseResult[];
  producer: ProducerResult[];
  backlog: BacklogResult[];
}

interface TargetLine {
  target: string;
  measured: string;
  /** undefined: not measured in this run (scenario not run, or the machine could not carry it). */
  met: boolean | undefined;
}

const system = (result: CaseResult | undefined, name: string): SystemMedians | undefined =>
  result?.systems.find((s) => s.system === name);
const drainCase = (results: RunResults, loops: number): CaseResult | undefined =>
  results.cases.find((c) => c.title.startsWith('drain') && c.spec.keys === 0 && c.spec.loops === loops);
const ratio = (a: SystemMedians | undefined, b: SystemMedians | undefined): number | undefined =>
  a && b ? a.msgsPerSecond / b.msgsPerSecond : undefined;
const cpu = (s: SystemMedians | undefined): string =>
  s ? `${f1(s.nodeUsPerMsg)} / ${s.postgresUsPerMsg === undefined ? '–' : f1(s.postgresUsPerMsg)}` : '–';

function drainTargets(results: RunResults): TargetLine[] {
  const lines: TargetLine[] = [];
  for (const loops of [10, 1]) {
    const c = drainCase(results, loops);
    const qb = system(c, 'QueueBox');
    const raw = ratio(qb, system(c, 'raw loop'));
    const gw = ratio(qb, system(c, 'graphile-worker'));
    const tuned = ratio(system(c, 'QueueBox tuned'), system(c, 'raw loop'));
    lines.push({
      target: `Drain, ${loops} loop(s)-equivalent, QueueBox defaults ≥ 0.8× raw${loops === 10 ? ' and ahead of graphile-worker (localQueue)' : ''}`,
      measured:
        raw === undefined
          ? 'not run'
          : `${f2(raw)}× raw${gw === undefined ? '' : `, ${f2(gw)}× graphile-worker`}; tuned (batch 100, ${100 * loops} in flight) ${tuned === undefined ? '–' : `${f2(tuned)}× raw`}; CPU node / PostgreSQL µs/msg QueueBox ${cpu(qb)}, raw ${cpu(system(c, 'raw loop'))}`,
      met: raw === undefined ? undefined : raw >= 0.8 && (loops !== 10 || gw === undefined || gw > 1),
    });
  }
  return lines;
}

function producerTarget(results: RunResults): TargetLine {
  const qb = results.producer.find((p) => p.rate === 1_000 && p.system === 'QueueBox');
  if (!qb)
    return {
      target: 'Producer in another process at 1,000 msg/s: p50 ≤ 2 ms, p99 ≤ 20 ms',
      measured: 'not run',
      met: undefined,
    };
  const carried = qb.producerTxPerSecond >= 0.95 * qb.rate;
  return {
    target: 'Producer in another process at 1,000 msg/s: p50 ≤ 2 ms, p99 ≤ 20 ms',
    measured: `p50 ${f2(qb.p50)} / p99 ${f2(qb.p99)} ms; producer reached ${f0(qb.producerTxPerSecond)} tx/s${carried ? '' : ' (the machine could not carry the producer: latency includes its backlog)'}${qb.allPublished ? '' : '; SOME NOT PUBLISHED'}`,
    met: qb.p50 <= 2 && qb.p99 <= 20 && qb.allPublished ? true : carried ? false : undefined,
  };
}

function orderedTarget(results: RunResults): TargetLine {
  const c = results.cases.find((r) => r.title.startsWith('ordered') && r.spec.keys === 1);
  const qb = system(c, 'QueueBox');
  const floor = system(c, 'hand-off floor');
  return {
    target: 'Ordered, 1 key (the hand-off path) ≥ 1,500 msg/s',
    measured: qb
      ? `${f0(qb.msgsPerSecond)} msg/s${qb.allFinished ? '' : ' (some runs cut)'}${floor ? `, ${f2(qb.msgsPerSecond / floor.msgsPerSecond)}× the hand-off floor (${f0(floor.msgsPerSecond)} msg/s)` : ''}; CPU ${cpu(qb)} µs/msg${qb.wal ? `; WAL ${f0(qb.wal.bytes)} B/msg, ${f2(qb.wal.syncs)} flushes/msg` : ''}`
      : 'not run',
    met: qb ? qb.msgsPerSecond >= 1_500 : undefined,
  };
}

function pullTarget(results: RunResults): TargetLine {
  const c = results.cases.find((r) => r.title.startsWith('pull'));
  const r = ratio(system(c, 'QueueBox'), system(c, 'raw, TypeORM'));
  return {
    target: 'Pull workers ≥ 0.9× the raw loop through TypeORM',
    measured:
      r === undefined
        ? 'not run'
        : `${f2(r)}× (${f2(ratio(system(c, 'QueueBox'), system(c, 'raw loop'))!)}× the raw loop on node-postgres); CPU QueueBox ${cpu(system(c, 'QueueBox'))}, raw TypeORM ${cpu(system(c, 'raw, TypeORM'))} µs/msg`,
    met: r === undefined ? undefined : r >= 0.9,
  };
}

function backlogTarget(results: RunResults): TargetLine {
  if (results.backlog.length === 0)
    return { target: 'Claim on 1M sent + 100k blocked vs a small table ≤ 2×', measured: 'not run', met: undefined };
  return {
    target: 'Claim on 1M sent + 100k blocked vs a small table ≤ 2×',
    measured: results.backlog
      .map(
        (b) =>
          `${b.which} ${f2(b.ratio)}× (${f2(b.deepMs)} vs ${f2(b.smallMs)} ms; generic plan ${b.genericRatio === undefined ? '–' : `${f2(b.genericRatio)}×`})`,
      )
      .join('; '),
    met: results.backlog.every((b) => b.ratio <= 2),
  };
}

/**
 * The closing summary: each of issue 21's targets, what this run measured, met or not. CPU per
 * message against a previous build is `npm run bench:compare`'s (the flag there: a rise > 10 %).
 */
export function printTargets(ctx: BenchContext, results: RunResults): void {
  ctx.heading("Issue 21's targets (QueueBox at its defaults; medians of this run)");
  const lines = [
    ...drainTargets(results),
    producerTarget(results),
    orderedTarget(results),
    pullTarget(results),
    backlogTarget(results),
  ];
  for (const line of lines) {
    ctx.print(
      `  [${line.met === undefined ? ' n/a ' : line.met ? ' met ' : ' NOT '}] ${line.target}\n          ${line.measured}`,
    );
  }
  ctx.print('  CPU per message before/after a change: npm run bench:compare (flags a rise above 10 %)');
}
