import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { HealthFinding } from './health-finding.js';

/**
 * The indicator's result: down when a loop is unhealthy or a finding is `down`; the findings,
 * when there are any, listed under `degraded` (level `degraded`) and `down` (level `down`).
 */
export function withFindings(
  indicator: ReturnType<HealthIndicatorService['check']>,
  details: Record<string, unknown>,
  loopsHealthy: boolean,
  findings: readonly HealthFinding[],
): HealthIndicatorResult {
  const degraded = findings.filter((finding) => finding.level === 'degraded');
  const down = findings.filter((finding) => finding.level === 'down');
  const reported = { ...details, ...(degraded.length > 0 ? { degraded } : {}), ...(down.length > 0 ? { down } : {}) };
  return loopsHealthy && down.length === 0 ? indicator.up(reported) : indicator.down(reported);
}
