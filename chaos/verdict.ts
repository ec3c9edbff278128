import type { ChaosControl } from './chaos-config.js';

/** The counters of the checks' query (sql/checks.sql.ts). */
export interface CheckCounters {
  committed: number;
  rolledBack: number;
  fed: number;
  delivered: number;
  duplicates: number;
  intakeDuplicates: number;
  effects: number;
  lost: number;
  rolledBackDelivered: number;
  orderViolations: number;
  doubleEffects: number;
  doubleForwards: number;
  stuck: number;
  lateFencedWrites: number;
  /** Information: fenced writes that began before their lease ended and reached the row after it (sql/audit-trigger.sql.ts). */
  landedAfterLease: number;
  stolenLeases: number;
  auditedWrites: number;
}

export interface FaultCounters {
  kills: number;
  stops: number;
  terminations: number;
  terminatedBackends: number;
  /** Network cuts: every connection through the proxy silent past the lease, then resumed or reset. */
  cuts: number;
  /** Crash-restarts of the private cluster (`pg_ctl stop -m immediate`, then crash recovery). */
  restarts: number;
  /** Failovers of the HA pair: the standby promoted, the replicas' address moved to it. */
  failovers: number;
  /** Replica exits the coordinator did not cause (an unhandled error, say). */
  crashes: number;
  /** Loops (of running replicas) with no tick for `stallMs` once the faults were over. */
  stalledLoops: number;
  /** Replicas without a LISTEN connection at the end. */
  notListening: number;
}

/** The faults a run injects; `restarts` only on a private cluster, `failovers` only on an HA pair. */
export type FaultKind = 'kills' | 'stops' | 'terminations' | 'cuts' | 'restarts' | 'failovers';

/** Counters that must be zero for a PASS: the checks' violations, and the replicas' liveness. */
export const VIOLATIONS = [
  'lost',
  'rolledBackDelivered',
  'orderViolations',
  'doubleEffects',
  'doubleForwards',
  'stuck',
  'lateFencedWrites',
  'stolenLeases',
] as const;
export const LIVENESS = ['crashes', 'stalledLoops', 'notListening'] as const;

export interface Verdict {
  pass: boolean;
  line: string;
  /** Why it failed, one reason per entry. */
  reasons: string[];
}

/**
 * PASS when no violation counter moved, no replica crashed, stalled or stopped listening,
 * something was committed, fed and delivered, and every kind of fault in `injected` happened at
 * least once (a run without faults proves nothing). `report` adds figures to the line that do
 * not decide it (the recovery after each failover, say).
 */
export function verdictOf(
  checks: CheckCounters,
  faults: FaultCounters,
  seconds: number,
  control?: ChaosControl,
  injected: readonly FaultKind[] = ['kills', 'stops', 'terminations', 'cuts', 'restarts'],
  report: Readonly<Record<string, string>> = {},
): Verdict {
  const reasons = VIOLATIONS.filter((name) => checks[name] > 0).map((name) => `${name}=${checks[name]}`);
  reasons.push(...LIVENESS.filter((name) => faults[name] > 0).map((name) => `${name}=${faults[name]}`));
  // A control run sends nothing to the intake (its replicas run no QueueBox worker).
  if (checks.committed === 0 || checks.delivered === 0 || (!control && (checks.fed === 0 || checks.effects === 0)))
    reasons.push('nothing flowed');
  for (const fault of injected) if (faults[fault] === 0) reasons.push(`no ${fault}`);
  const pass = reasons.length === 0;
  const counters = { ...checks, ...faults, seconds, ...report };
  const fields = Object.entries(counters).map(([name, value]) => `${name}=${value}`);
  const line = `chaos: ${pass ? 'PASS' : 'FAIL'}${control ? ` control=${control}` : ''} ${fields.join(' ')}`;
  return { pass, line, reasons };
}
