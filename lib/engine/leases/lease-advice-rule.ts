import type { ClaimComponent } from '../../shared/interfaces/claim.interface.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import type { LeaseAdvice } from '../../shared/interfaces/lease-advice.interface.js';
import type { LeaseWindow } from './lease-window.js';

/** Finished rows per component and stream that the rule looks at. */
export const LEASE_WINDOW_SIZE = 100;
/** Rows needed before utilization alone leads to advice (a lost claim needs none). */
export const LEASE_MIN_SAMPLES = 5;
/** p95 utilization from which the work "regularly uses most of its lease". */
export const LEASE_UTILIZATION_THRESHOLD = 0.8;
/** The advised lease leaves the p99 work this share of it: twice the p99 duration. */
const TARGET_UTILIZATION = 0.5;
/** Advised leases are whole seconds. */
const ROUND_TO_MS = 1_000;
/** While the rule holds, the advice (its percentiles need a sort) is refreshed every this many rows. */
export const EVALUATE_EVERY_ROWS = 10;
/** The same advice is logged again at most this often. */
export const LEASE_ADVICE_LOG_INTERVAL_MS = 15 * 60_000;

/**
 * The advisor's rule: advise when, over the last `LEASE_WINDOW_SIZE` finished rows of one
 * component and stream, the p95 of processing time / lease is at least 0.8 (with at least
 * `LEASE_MIN_SAMPLES` rows), or any of them lost its claim. The recommended lease is twice the
 * p99 processing time (so p99 work uses half of it), rounded up to a whole second, and at least
 * twice the current lease when claims were lost.
 */
export function adviseLease(
  component: ClaimComponent,
  stream: string,
  leaseMs: number,
  window: LeaseWindow,
): LeaseAdvice | undefined {
  if (!leaseRuleHolds(window)) return undefined;
  const busy = isBusy(window);
  const utilization = window.percentiles();
  const byUtilization = (utilization.p99 * leaseMs) / TARGET_UTILIZATION;
  const byLoss = window.lost > 0 ? 2 * leaseMs : 0;
  const recommendedLeaseMs = Math.ceil(Math.max(byUtilization, byLoss, leaseMs + 1) / ROUND_TO_MS) * ROUND_TO_MS;
  return {
    component,
    stream,
    option: leaseOptionOf(component, stream),
    leaseMs,
    recommendedLeaseMs,
    utilization,
    samples: window.samples,
    claimsLost: window.lost,
    reason: busy ? 'utilization' : 'claims-lost',
  };
}

/** The rule, without sorting (checked after every row): busy, or a claim lost in the window. */
export function leaseRuleHolds(window: LeaseWindow): boolean {
  return window.lost > 0 || isBusy(window);
}

function isBusy(window: LeaseWindow): boolean {
  return window.samples >= LEASE_MIN_SAMPLES && window.p95AtOrAboveThreshold;
}

/** Where the application sets the lease of a component's claims of `stream`. */
function leaseOptionOf(component: ClaimComponent, stream: string): string {
  const claimer = CLAIMERS[component];
  return claimer.option(claimer.leaseOption, stream);
}
