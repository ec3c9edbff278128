import type { PaceBounds } from '../config/options/pace-bounds.js';

/**
 * How many rows a claim worker holds in flight and asks for per claim: `FixedPace` as set,
 * `AdaptivePace` (the default) by the backlog and the work's health. Ordering and lease safety stay
 * with the claim SQL and the fenced writes.
 */
export interface ClaimPace {
  readonly concurrency: number;
  readonly batchSize: number;
  readonly adaptive: boolean;
  /** A claim asked for `wanted` rows and got `got`; `inFlight`: the rows the worker holds after it. */
  claimed(wanted: number, got: number, inFlight: number): void;
  /** A row's work ended (`ok`: its finishing write committed); `ms`: how long the work ran, when known. */
  record(outcome: PaceOutcome, ms?: number): void;
  /** The loop ticked at `now` (a monotonic clock, ms); true when `concurrency` or `batchSize` changed. */
  observe(now: number): boolean;
}

export type PaceOutcome = 'ok' | 'failed';

export const PACE_WINDOW_MS = 250;
/**
 * The shortest window: one that has seen a whole limit's worth of outcomes and a full claim ends
 * after this long already, so that a deep backlog ramps with the work it finishes, not with the
 * clock (100 → 1,000 in flight in about 0.3 s at 10,000 rows a second, instead of 1.5 s).
 */
export const MIN_PACE_WINDOW_MS = 50;

/** Outcomes a window needs before its failure rate counts (a few failures of a quiet loop are noise). */
const MIN_OUTCOMES_FOR_ERRORS = 10;
const FAILED_SHARE = 0.1;
const BINDING_SHARE = 0.8;
/** Work durations one window keeps for its percentiles (the first ones: enough for a p90, bounded). */
const MAX_DURATIONS = 2_048;

export class FixedPace implements ClaimPace {
  readonly adaptive = false;

  constructor(
    readonly concurrency: number,
    readonly batchSize: number,
  ) {}

  claimed(): void {}

  record(): void {}

  observe(): boolean {
    return false;
  }
}

/**
 * Moves the in-flight count on the worker's own ticks, every `PACE_WINDOW_MS` (or `MIN_PACE_WINDOW_MS`
 * once the window saw a full claim and a limit's worth of outcomes):
 * - halve on a failed share of 10 % (of 10+ outcomes), or a p90 work time of a quarter of the lease;
 * - shrink ×0.8 when the p50 is above twice the baseline (the lowest p50 seen) plus 5 ms;
 * - grow ×1.5 when the last claim came back full, in-flight reached 80 % of the limit, and work is healthy;
 * - else hold. The batch is half the concurrency. Deterministic given its inputs.
 */
export class AdaptivePace implements ClaimPace {
  readonly adaptive = true;
  concurrency: number;
  batchSize: number;
  private windowStart?: number;
  private claims = 0;
  private lastClaimFull = false;
  private peakInFlight = 0;
  private outcomes = 0;
  private failed = 0;
  private readonly durations = new Float64Array(MAX_DURATIONS);
  private measured = 0;
  private baselineMs?: number;

  constructor(
    private readonly bounds: PaceBounds,
    /** The lease of every claim: work times near a quarter of it are lease pressure. */
    private readonly leaseMs: number,
  ) {
    this.concurrency = bounds.concurrency.start;
    this.batchSize = this.batchFor(this.concurrency);
  }

  get baseline(): number | undefined {
    return this.baselineMs;
  }

  claimed(wanted: number, got: number, inFlight: number): void {
    this.claims++;
    this.lastClaimFull = wanted > 0 && got >= wanted;
    this.peakInFlight = Math.max(this.peakInFlight, inFlight);
  }

  record(outcome: PaceOutcome, ms?: number): void {
    this.outcomes++;
    if (outcome === 'failed') this.failed++;
    if (ms !== undefined && this.measured < MAX_DURATIONS) this.durations[this.measured++] = ms;
  }

  observe(now: number): boolean {
    if (this.windowStart === undefined) {
      this.windowStart = now;
      return false;
    }
    const elapsed = now - this.windowStart;
    const turnedOver = elapsed >= MIN_PACE_WINDOW_MS && this.lastClaimFull && this.outcomes >= this.concurrency;
    if (elapsed < PACE_WINDOW_MS && !turnedOver) return false;
    const before = this.concurrency;
    this.concurrency = this.decide();
    this.batchSize = this.batchFor(this.concurrency);
    this.startWindow(now);
    return this.concurrency !== before;
  }

  private decide(): number {
    const { min, max } = this.bounds.concurrency;
    const current = this.concurrency;
    const [p50, p90] = this.percentiles();
    const failing = this.outcomes >= MIN_OUTCOMES_FOR_ERRORS && this.failed >= FAILED_SHARE * this.outcomes;
    const leasePressure = p90 !== undefined && p90 >= this.leaseMs / 4;
    const slow = p50 !== undefined && this.baselineMs !== undefined && p50 > 2 * this.baselineMs + 5;
    if (p50 !== undefined && !failing && !leasePressure && !slow) {
      // At the floor the destination sets the baseline, slower or not: shrinking further cannot help.
      this.baselineMs = current === min || this.baselineMs === undefined ? p50 : Math.min(this.baselineMs, p50);
    }
    if (failing || leasePressure) return Math.max(min, Math.floor(current / 2));
    if (slow) {
      if (current === min) this.baselineMs = p50;
      return Math.max(min, Math.floor(current * 0.8));
    }
    const deepBacklog = this.claims > 0 && this.lastClaimFull;
    const binding = this.peakInFlight >= BINDING_SHARE * current;
    const healthy = this.outcomes > this.failed;
    if (deepBacklog && binding && healthy) return Math.min(max, Math.ceil(current * 1.5));
    return current;
  }

  private percentiles(): [number | undefined, number | undefined] {
    if (this.measured === 0) return [undefined, undefined];
    const sorted = this.durations.subarray(0, this.measured).sort();
    const at = (share: number): number => sorted[Math.max(0, Math.ceil(share * this.measured) - 1)];
    return [at(0.5), at(0.9)];
  }

  private batchFor(concurrency: number): number {
    const { min, max } = this.bounds.batchSize;
    return Math.min(max, Math.max(min, Math.floor(concurrency / 2)));
  }

  private startWindow(now: number): void {
    this.windowStart = now;
    this.claims = 0;
    this.lastClaimFull = false;
    this.peakInFlight = 0;
    this.outcomes = 0;
    this.failed = 0;
    this.measured = 0;
  }
}
