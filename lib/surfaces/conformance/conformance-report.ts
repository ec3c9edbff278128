import { dialectProfile, type DialectName } from '../../database/dialects/dialect-registry.js';

/** The names of the conformance checks, in the order they run. @publicApi */
export type ConformanceCheckName =
  | 'pooling'
  | 'schema'
  | 'fence-stale-token'
  | 'fence-expired-lease'
  | 'database-clock'
  | 'one-in-flight-per-key'
  | 'fifo-per-key'
  | 'inbox-dedup'
  | 'claim-lock'
  | 'notify'
  | 'cleanup';

/**
 * One check of a conformance run: `pass`, `fail` (with `reason`), or `skip` (not applicable to this
 * database, or not run because the schema could not be made; `reason` says which). `evidence` is
 * what was observed.
 * @publicApi
 */
export interface ConformanceCheck {
  name: ConformanceCheckName;
  /** What the check proves, in one line. */
  title: string;
  status: 'pass' | 'fail' | 'skip';
  evidence: string;
  reason?: string;
  durationMs: number;
}

/** The result of `runConformance()`: `passed` when no check failed. @publicApi */
export interface ConformanceReport {
  passed: boolean;
  database: DialectName;
  /** The schema the run made for itself (and dropped). */
  schema: string;
  checks: ConformanceCheck[];
}

const MARK: Record<ConformanceCheck['status'], string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' };

/** The report as text: one line per check with its evidence (and reason), then the verdict. @publicApi */
export function formatConformanceReport(report: ConformanceReport): string {
  const lines = [`QueueBox conformance on ${dialectProfile(report.database).displayName} (schema ${report.schema})`];
  for (const check of report.checks) {
    lines.push(`${MARK[check.status]}  ${check.name} — ${check.title} (${check.durationMs} ms)`);
    if (check.evidence) lines.push(`      observed: ${check.evidence}`);
    if (check.reason) lines.push(`      ${check.status === 'fail' ? 'reason' : 'why'}: ${check.reason}`);
  }
  const failed = report.checks.filter((check) => check.status === 'fail').map((check) => check.name);
  lines.push(report.passed ? 'conformance: PASSED' : `conformance: FAILED (${failed.join(', ')})`);
  return lines.join('\n');
}
