import type { ClaimComponent } from './claim.interface.js';

/** Percentiles of lease utilization (processing time / lease) over a window. */
export interface UtilizationPercentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The lease advisor's advice for one component and stream: its work regularly uses most of its
 * lease (p95 of the last rows ≥ 0.8 of it), or claims were lost. `recommendedLeaseMs` is the
 * lease to set in `option`.
 * @publicApi
 */
export interface LeaseAdvice {
  component: ClaimComponent;
  /** The destination (outbox) or the source (relay, pull) the rows belong to. */
  stream: string;
  /** The option to change: `outbox.claimTimeoutMs`, `inbox.relay.claimTimeoutMs` or `@PullWorker('<source>', { leaseMs })`. */
  option: string;
  leaseMs: number;
  recommendedLeaseMs: number;
  /** Processing time / lease over the window (1 = the whole lease). */
  utilization: UtilizationPercentiles;
  /** Rows in the window. */
  samples: number;
  /** Claims lost among them. */
  claimsLost: number;
  reason: 'utilization' | 'claims-lost';
}
