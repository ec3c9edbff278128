import { readdir, readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

/** Count, total time and rows of one kind of statement. */
export class StatementTimer {
  calls = 0;
  totalMs = 0;
  rows = 0;
  maxMs = 0;
  private readonly samples: number[] = [];
  private readonly sizes = new Map<string, number>();

  add(ms: number, rows: number): void {
    const bucket = ROW_BUCKETS.find(([, max]) => rows <= max)![0];
    this.sizes.set(bucket, (this.sizes.get(bucket) ?? 0) + 1);
    this.calls += 1;
    this.totalMs += ms;
    this.rows += rows;
    this.maxMs = Math.max(this.maxMs, ms);
    this.samples.push(ms);
  }

  /** Runs `work`, counting the rows `count` reads from its result. */
  async time<T>(work: () => Promise<T>, count: (result: T) => number): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.add(performance.now() - started, count(result));
    return result;
  }

  summary(): string {
    if (this.calls === 0) return 'none';
    const p50 = percentile(this.samples, 50);
    return `${this.calls} calls, ${f1(this.rows / this.calls)} rows/call, ${f2(this.totalMs / this.calls)} ms avg, p50 ${f2(p50)} ms, max ${f1(this.maxMs)} ms, total ${f0(this.totalMs)} ms`;
  }

  /** Calls by rows per call, e.g. `1:120 2-9:40 100+:180`. */
  sizeHistogram(): string {
    return ROW_BUCKETS.filter(([name]) => this.sizes.has(name))
      .map(([name]) => `${name}:${this.sizes.get(name)}`)
      .join(' ');
  }
}

const ROW_BUCKETS: readonly (readonly [string, number])[] = [
  ['0', 0],
  ['1', 1],
  ['2-9', 9],
  ['10-49', 49],
  ['50-99', 99],
  ['100+', Number.POSITIVE_INFINITY],
];

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function latencySummary(samples: readonly number[]): string {
  if (samples.length === 0) return 'no samples';
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => percentile(sorted, p);
  return `p50 ${f2(at(50))} ms, p95 ${f2(at(95))} ms, p99 ${f2(at(99))} ms, max ${f2(sorted[sorted.length - 1])} ms, min ${f2(sorted[0])} ms (n=${sorted.length})`;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const f0 = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));
export const f1 = (n: number): string => n.toFixed(1);
export const f2 = (n: number): string => n.toFixed(2);

/** CPU seconds of this process and of the local PostgreSQL server processes, between two reads. */
export interface CpuReading {
  nodeMs: number;
  postgresMs: number | undefined;
}

export async function readCpu(withPostgres: boolean): Promise<CpuReading> {
  const usage = process.cpuUsage();
  return { nodeMs: (usage.user + usage.system) / 1000, postgresMs: withPostgres ? await postgresCpuMs() : undefined };
}

export function cpuSummary(before: CpuReading, after: CpuReading, wallMs: number): string {
  const node = after.nodeMs - before.nodeMs;
  const parts = [`node ${f0(node)} ms (${f0((node / wallMs) * 100)} % of one core)`];
  if (before.postgresMs !== undefined && after.postgresMs !== undefined) {
    const pg = after.postgresMs - before.postgresMs;
    parts.push(`postgres ${f0(pg)} ms (${f0((pg / wallMs) * 100)} % of one core)`);
  }
  return parts.join(', ');
}

/** Sum of user+system time of every process named `postgres` (Linux /proc; the embedded server runs here). */
async function postgresCpuMs(): Promise<number | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  const ticksPerSecond = 100;
  let ticks = 0;
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (pid) => {
        try {
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
          const close = stat.lastIndexOf(')');
          const name = stat.slice(stat.indexOf('(') + 1, close);
          if (name !== 'postgres') return;
          const fields = stat.slice(close + 2).split(' ');
          // Fields after the name: state is 0, utime 11, stime 12, and cutime 13, cstime 14: the
          // time of reaped children, so that backends that exited (idle pool connections closed)
          // still count, through the postmaster.
          ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
        } catch {
          // The process ended meanwhile.
        }
      }),
  );
  return (ticks / ticksPerSecond) * 1000;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
