import type { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { leaseAdvice } from '../../shared/queuebox.messages.js';
import type { HealthFinding } from './health-finding.js';

/** The lease advisor's advice in force, as degraded findings: work is about to outlive its leases. */
export function leaseAdviceFindings(advisor: LeaseAdvisor): HealthFinding[] {
  return advisor.advice.map((advice) => ({
    level: 'degraded',
    kind: 'lease-advice',
    subject: `${advice.component}:${advice.stream}`,
    observed: advice.utilization.p95,
    limit: advice.recommendedLeaseMs,
    message: leaseAdvice(advice),
  }));
}
