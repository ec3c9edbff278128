import type { BenchContext } from '../bench-context.js';
import { f0, f1, f2, median } from '../bench-stats.js';
import type { WalPerMessage } from '../bench-wal.js';
import type { DrainOutcome, DrainRunner, DrainSpec } from './drain-run.js';

/** Medians of one system over the paired reps of one case. */
export interface SystemMedians {
  system: string;
  msgsPerSecond: number;
  nodeUsPerMsg: number;
  postgresUsPerMsg: number | undefined;
  /** Medians of each WAL figure per message, when measured. */
  wal: WalPerMessage | undefined;
  allFinished: boolean;
}

/** WAL per message in one short phrase: bytes, records, full-page images, flushes. */
export function walText(wal: WalPerMessage | undefined): string {
  if (!wal) return '';
  return `, WAL ${f0(wal.bytes)} B/msg (${f2(wal.records)} records, ${f2(wal.fullPageImages)} FPI, ${wal.syncs < 0.1 ? wal.syncs.toFixed(4) : f2(wal.syncs)} flushes per msg)`;
}

function medianWal(list: readonly (WalPerMessage | undefined)[]): WalPerMessage | undefined {
  const all = list.filter((w): w is WalPerMessage => w !== undefined);
  if (all.length === 0) return undefined;
  return {
    bytes: median(all.map((w) => w.bytes)),
    records: median(all.map((w) => w.records)),
    fullPageImages: median(all.map((w) => w.fullPageImages)),
    syncs: median(all.map((w) => w.syncs)),
  };
}

/** What a case printed, kept for the closing summary. */
export interface CaseResult {
  title: string;
  /** What the case ran (the targets summary finds its cases by it). */
  spec: DrainSpec;
  systems: SystemMedians[];
}

/**
 * Runs every runner on `spec` for `reps` paired reps, the order rotated each rep so that drift
 * (the machine is shared) hits every system alike; prints each run, then the medians, CPU per
 * message and QueueBox's ratio to each other system.
 */
export async function compareDrain(
  ctx: BenchContext,
  title: string,
  spec: DrainSpec,
  runners: readonly DrainRunner[],
  reps: number,
): Promise<CaseResult> {
  ctx.print(`\n  case: ${title}`);
  const active = runners.filter((runner) => {
    const why = runner.skip?.(spec);
    if (why) ctx.print(`      (${runner.name} not run: ${why})`);
    return !why;
  });
  const outcomes = new Map<string, DrainOutcome[]>(active.map((runner) => [runner.name, []]));
  for (let rep = 0; rep < reps; rep++) {
    const order = active.map((_, i) => active[(i + rep) % active.length]);
    for (const runner of order) {
      const outcome = await runner.run(ctx, spec);
      outcomes.get(runner.name)!.push(outcome);
      ctx.print(
        `    rep ${rep + 1} ${runner.name.padEnd(16)} ${f0(outcome.msgsPerSecond).padStart(7)} msg/s${outcome.finished ? '' : ` (CUT at ${f0(spec.capMs / 1000)} s: ${outcome.done}/${spec.rows})`}, ` +
          `node ${f1(outcome.nodeUsPerMsg)} µs/msg${outcome.postgresUsPerMsg === undefined ? '' : `, postgres ${f1(outcome.postgresUsPerMsg)} µs/msg`}${walText(outcome.wal)}; ${outcome.detail}`,
      );
    }
  }
  const systems: SystemMedians[] = active.map((runner) => {
    const list = outcomes.get(runner.name)!;
    const pg = list.map((o) => o.postgresUsPerMsg).filter((v): v is number => v !== undefined);
    return {
      system: runner.name,
      msgsPerSecond: median(list.map((o) => o.msgsPerSecond)),
      nodeUsPerMsg: median(list.map((o) => o.nodeUsPerMsg)),
      postgresUsPerMsg: pg.length ? median(pg) : undefined,
      wal: medianWal(list.map((o) => o.wal)),
      allFinished: list.every((o) => o.finished),
    };
  });
  printMedians(ctx, reps, systems, outcomes);
  return { title, spec, systems };
}

function printMedians(
  ctx: BenchContext,
  reps: number,
  systems: readonly SystemMedians[],
  outcomes: Map<string, DrainOutcome[]>,
): void {
  ctx.print(`    median of ${reps} rep(s):`);
  for (const s of systems) {
    const all = outcomes
      .get(s.system)!
      .map((o) => f0(o.msgsPerSecond))
      .join(', ');
    ctx.print(
      `      ${s.system.padEnd(16)} ${f0(s.msgsPerSecond).padStart(7)} msg/s  [${all}]  node ${f1(s.nodeUsPerMsg)} µs/msg` +
        `${s.postgresUsPerMsg === undefined ? '' : `, postgres ${f1(s.postgresUsPerMsg)} µs/msg`}${walText(s.wal)}${s.allFinished ? '' : '  (some runs cut)'}`,
    );
  }
  const qb = systems.find((s) => s.system === 'QueueBox');
  if (!qb) return;
  for (const other of systems) {
    if (other === qb) continue;
    const nodeDelta = qb.nodeUsPerMsg - other.nodeUsPerMsg;
    ctx.print(
      `    => QueueBox/${other.system} = ${f2(qb.msgsPerSecond / other.msgsPerSecond)}; node CPU/msg QueueBox − ${other.system} = ${nodeDelta >= 0 ? '+' : ''}${f1(nodeDelta)} µs`,
    );
  }
}

/** The closing table of every case: msg/s per system and QueueBox's ratios. */
export function printSummary(ctx: BenchContext, results: readonly CaseResult[]): void {
  if (results.length === 0) return;
  ctx.heading(
    'Summary (medians; ratio = QueueBox / other; CPU per message node / PostgreSQL, µs; WAL bytes and flushes per message)',
  );
  for (const result of results) {
    const qb = result.systems.find((s) => s.system === 'QueueBox');
    const cells = result.systems.map(
      (s) =>
        `${s.system} ${f0(s.msgsPerSecond)}/s${qb && s !== qb ? ` (×${f2(qb.msgsPerSecond / s.msgsPerSecond)})` : ''}`,
    );
    ctx.print(`  ${result.title}: ${cells.join(' | ')}`);
    for (const s of result.systems) {
      ctx.print(
        `      ${s.system.padEnd(16)} CPU ${f1(s.nodeUsPerMsg)} / ${s.postgresUsPerMsg === undefined ? '–' : f1(s.postgresUsPerMsg)} µs/msg` +
          (s.wal
            ? `; WAL ${f0(s.wal.bytes)} B/msg, ${s.wal.syncs < 0.1 ? s.wal.syncs.toFixed(4) : f2(s.wal.syncs)} flushes/msg`
            : ''),
      );
    }
  }
}
