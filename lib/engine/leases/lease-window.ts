import type { UtilizationPercentiles } from '../../shared/interfaces/lease-advice.interface.js';

/**
 * The last `size` finished rows of one component and stream: how much of its lease each used,
 * and whether its claim was lost. A ring buffer that also counts the rows at or above
 * `threshold`, so that "p95 ≥ threshold" is known per row without sorting; no allocation per row.
 */
export class LeaseWindow {
  private readonly utilization: Float64Array;
  private readonly lostFlags: Uint8Array;
  private next = 0;
  private filled = 0;
  /** Claims lost among the rows in the window. */
  lost = 0;
  /** Rows in the window that used at least `threshold` of their lease. */
  private atOrAbove = 0;

  constructor(
    readonly size: number,
    readonly threshold: number,
  ) {
    this.utilization = new Float64Array(size);
    this.lostFlags = new Uint8Array(size);
  }

  /** Rows in the window. */
  get samples(): number {
    return this.filled;
  }

  add(utilization: number, lost: boolean): void {
    if (this.filled === this.size) {
      this.lost -= this.lostFlags[this.next];
      if (this.utilization[this.next] >= this.threshold) this.atOrAbove -= 1;
    } else {
      this.filled += 1;
    }
    if (utilization >= this.threshold) this.atOrAbove += 1;
    this.utilization[this.next] = utilization;
    this.lostFlags[this.next] = lost ? 1 : 0;
    if (lost) this.lost += 1;
    this.next = (this.next + 1) % this.size;
  }

  /**
   * Whether the nearest-rank p95 is at least `threshold`: the sorted p95 is the value at rank
   * ceil(0.95 n), so at least n − ceil(0.95 n) + 1 rows must be at or above it.
   */
  get p95AtOrAboveThreshold(): boolean {
    return this.filled > 0 && this.atOrAbove >= this.filled - Math.ceil(0.95 * this.filled) + 1;
  }

  /** Nearest-rank percentiles of the window (sorted copy: evaluated rarely, never per row). */
  percentiles(): UtilizationPercentiles {
    const sorted = this.utilization.slice(0, this.filled).sort();
    const rank = (p: number): number =>
      sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
    return { p50: rank(0.5), p95: rank(0.95), p99: rank(0.99), max: sorted[sorted.length - 1] ?? 0 };
  }
}
