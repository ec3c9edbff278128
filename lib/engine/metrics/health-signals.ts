import { performance } from 'node:perf_hooks';

/** Dead letters remembered at most: a count past it reads as this many. */
const MAX_REMEMBERED = 10_000;

/** The last sampled oldest pending age of one destination (outbox) or source (inbox). */
export interface SampledAge {
  table: 'outbox' | 'inbox';
  name: string;
  oldestAgeSeconds: number;
}

/**
 * What health thresholds read synchronously, kept by `QueueBoxMetrics` as it records: the last
 * backlog samples, and when this replica dead-lettered rows (monotonic process time, for a
 * sliding window; never a row's time).
 */
export class HealthSignals {
  private readonly ages = new Map<string, SampledAge>();
  private readonly deadAt: number[] = [];

  sampledAge(table: 'outbox' | 'inbox', name: string, oldestAgeSeconds: number): void {
    this.ages.set(`${table}:${name}`, { table, name, oldestAgeSeconds });
  }

  deadLettered(): void {
    if (this.deadAt.length >= MAX_REMEMBERED) this.deadAt.shift();
    this.deadAt.push(performance.now());
  }

  /** The last sample of every destination and source. */
  get oldestPendingAges(): SampledAge[] {
    return [...this.ages.values()];
  }

  /** Dead letters within the last `windowMs`. */
  deadLettersWithin(windowMs: number): number {
    const since = performance.now() - windowMs;
    while (this.deadAt.length > 0 && this.deadAt[0] < since) this.deadAt.shift();
    return this.deadAt.length;
  }
}
