import type { PaceBounds } from '../config/options/pace-bounds.js';

/**
 * How many rows a claim worker holds in flight and asks for per claim. `FixedPace` keeps the
 * values a user set; `AdaptivePace` (the default when neither `concurrency` nor `batchSize` is
 * set) moves them with the backlog and the health of the work. Pace only changes how many rows
 * are asked for: ordering per key and lease safety stay with the claim SQL and the fenced writes
 * (docs/reference/options.md, "Adaptive pace").
 */
export interface ClaimPace {
  /** Rows whose work may run at once. */
  readonly concurrency: number;
  /** Most rows one claim asks for. */
  readonly batchSize: number;
  /** Whether the values move (a gauge and the admin show them either way). */
  readonly adaptive: boolean;
  /** A claim asked for `wanted` rows and got `got`; `inFlight`: the rows the worker holds after it. */
  claimed(wanted: number, got: number, inFlight: number): void;
  /** A row's work ended (`ok`: its finishing write committed); `ms`: how long the work ran, when known. */
  record(outcome: PaceOutcome, ms?: number): void;
  /**
   * The worker's loop ticked at `now` (milliseconds, any monotonic clock): decides once a window
   * has passed. True when `concurrency` or `batchSize` changed.
   */
  observe(now: number): boolean;
}

/** How a row's work ended, as pace sees it: a retry, a dead letter or a lost claim is `failed`. */
export type PaceOutcome = 'ok' | 'failed';

/** How often an adaptive pace decides, at the latest. */
export const PACE_WINDOW_MS = 250;
/**
 * The shortest window: one that has seen a whole limit's worth of outcomes and a full claim ends
 * after this long already, so that a deep backlog ramps with the work it finishes, not with the
 * clock (100 → 1,000 in flight in about 0.3 s at 10,000 rows a second, instead of 1.5 s).
 */
export const MIN_PACE_WINDOW_MS = 50;

/** Outcomes a window needs before its failure rate counts (a few failures of a quiet loop are noise). */
const MIN_OUTCOMES_FOR_ERRORS = 10;
/** Failed share of a window's outcomes that halves the concurrency. */
const FAILED_SHARE = 0.1;
/** In-flight share of the limit at which the limit is what binds. */
const BINDING_SHARE = 0.8;
/** Work durations one window keeps for its percentiles (the first ones: enough for a p90, bounded). */
const MAX_DURATIONS = 2_048;

/** The values a user set: exactly today's behaviour. */
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
 * Moves the in-flight count every `PACE_WINDOW_MS` — or after `MIN_PACE_WINDOW_MS` once the window
 * saw a full claim and as many outcomes as the limit — on the worker's own ticks (no timer, no
 * query), from what the window saw:
 * - halve on a failed share of at least 10 % (over at least 10 outcomes), or when the p90 work
 *   time reaches a quarter of the lease (lease pressure);
 * - shrink ×0.8 when the p50 work time is above twice the baseline plus 5 ms (a slowing
 *   destination); the baseline is the lowest p50 seen, and the p50 seen at the floor;
 * - grow ×1.5 when the last claim came back full (a deep backlog), the rows in flight reached
 *   80 % of the limit (the limit binds) and the work is healthy (none of the above);
 * - else hold. The batch is half the concurrency. Every value stays within its bounds.
 * Deterministic given its inputs: a test drives it with a fake clock.
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
  /** The p50 work time of a healthy window at low load, in ms; undefined until a window measured one. */
  private baselineMs?: number;

  constructor(
    private readonly bounds: PaceBounds,
    /** The lease of every claim: work times near a quarter of it are lease pressure. */
    private readonly leaseMs: number,
  ) {
    this.concurrency = bounds.concurrency.start;
    this.batchSize = this.batchFor(this.concurrency);
  }

  /** The p50 work time the slow-destination rule compares against, in ms. */
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

  /** The window's p50 and p90 work times, when it measured any. */
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
