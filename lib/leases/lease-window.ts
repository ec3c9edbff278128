/** Percentiles of lease utilization (processing time / lease) over a window. */
export interface UtilizationPercentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The last `size` finished rows of one component and stream: how much of its lease each used,
 * and whether its claim was lost. A ring buffer: no allocation per row.
 */
export class LeaseWindow {
  private readonly utilization: Float64Array;
  private readonly lostFlags: Uint8Array;
  private next = 0;
  private filled = 0;
  /** Claims lost among the rows in the window. */
  lost = 0;

  constructor(readonly size: number) {
    this.utilization = new Float64Array(size);
    this.lostFlags = new Uint8Array(size);
  }

  /** Rows in the window. */
  get samples(): number {
    return this.filled;
  }

  add(utilization: number, lost: boolean): void {
    if (this.filled === this.size) this.lost -= this.lostFlags[this.next];
    else this.filled += 1;
    this.utilization[this.next] = utilization;
    this.lostFlags[this.next] = lost ? 1 : 0;
    if (lost) this.lost += 1;
    this.next = (this.next + 1) % this.size;
  }

  /** Nearest-rank percentiles of the window (sorted copy: evaluated rarely, never per row). */
  percentiles(): UtilizationPercentiles {
    const sorted = this.utilization.slice(0, this.filled).sort();
    const rank = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
    return { p50: rank(0.5), p95: rank(0.95), p99: rank(0.99), max: sorted[sorted.length - 1] ?? 0 };
  }
}
