import { readdirSync, readFileSync } from 'node:fs';
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

/** CPU milliseconds of this process and of the local PostgreSQL server's processes, at one moment. */
export interface CpuReading {
  nodeMs: number;
  postgresMs: number | undefined;
}

/**
 * Reads both clocks now (synchronously, so a reading can be taken inside a callback at the exact
 * moment a run starts). `postmasterPid`: the bench's own server, whose processes are read from
 * /proc; undefined when the server is not this machine's or not the bench's alone.
 */
export function cpuNow(postmasterPid: number | undefined): CpuReading {
  const usage = process.cpuUsage();
  return {
    nodeMs: (usage.user + usage.system) / 1000,
    postgresMs: postmasterPid === undefined ? undefined : postgresCpuMs(postmasterPid),
  };
}

export function readCpu(postmasterPid: number | undefined): Promise<CpuReading> {
  return Promise.resolve(cpuNow(postmasterPid));
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

/** CPU microseconds per message between two readings: node, and PostgreSQL when it was read. */
export function cpuPerMessage(
  before: CpuReading,
  after: CpuReading,
  messages: number,
): { nodeUs: number; postgresUs: number | undefined } {
  const per = (ms: number): number => (ms * 1000) / Math.max(messages, 1);
  return {
    nodeUs: per(after.nodeMs - before.nodeMs),
    postgresUs:
      before.postgresMs !== undefined && after.postgresMs !== undefined
        ? per(after.postgresMs - before.postgresMs)
        : undefined,
  };
}

/**
 * user+system time of the postmaster and its children (backends, background workers), from
 * /proc/<pid>/stat. The postmaster's cutime/cstime count the children it already reaped, so a
 * backend whose connection closed during the run still counts.
 */
function postgresCpuMs(postmasterPid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const ticksPerSecond = 100;
  let ticks = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // the process ended meanwhile
    }
    // Fields after the name: state is 0, ppid 1, utime 11, stime 12, cutime 13, cstime 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (pid === postmasterPid)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmasterPid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / ticksPerSecond) * 1000;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
