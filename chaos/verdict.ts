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
  stolenLeases: number;
  auditedWrites: number;
}

export interface FaultCounters {
  kills: number;
  stops: number;
  terminations: number;
  terminatedBackends: number;
  crashes: number;
}

/** Counters that must be zero for a PASS. */
const VIOLATIONS = ['lost', 'rolledBackDelivered', 'orderViolations', 'doubleEffects', 'doubleForwards', 'stuck', 'lateFencedWrites', 'stolenLeases'] as const;

export interface Verdict {
  pass: boolean;
  line: string;
  /** Why it failed, one reason per entry. */
  reasons: string[];
}

/**
 * PASS when no violation counter moved, something was committed, fed and delivered, and every
 * kind of fault was injected at least once (a run without faults proves nothing).
 */
export function verdictOf(checks: CheckCounters, faults: FaultCounters, seconds: number, control?: ChaosControl): Verdict {
  const reasons = VIOLATIONS.filter((name) => checks[name] > 0).map((name) => `${name}=${checks[name]}`);
  // A control run sends nothing to the intake (its replicas run no QueueBox worker).
  if (checks.committed === 0 || checks.delivered === 0 || (!control && (checks.fed === 0 || checks.effects === 0))) reasons.push('nothing flowed');
  for (const fault of ['kills', 'stops', 'terminations'] as const) if (faults[fault] === 0) reasons.push(`no ${fault}`);
  const pass = reasons.length === 0;
  const counters = { ...checks, ...faults, seconds };
  const fields = Object.entries(counters).map(([name, value]) => `${name}=${value}`);
  const line = `chaos: ${pass ? 'PASS' : 'FAIL'}${control ? ` control=${control}` : ''} ${fields.join(' ')}`;
  return { pass, line, reasons };
}
