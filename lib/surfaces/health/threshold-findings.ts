import type { HealthSignals } from '../../engine/metrics/health-signals.js';
import { deadLettersInWindow, loopStalled, oldestPendingTooOld } from '../../shared/queuebox.messages.js';
import type { HealthFinding } from './health-finding.js';
import type { ResolvedHealthThresholds } from './queuebox-health-options.interface.js';

/** The worse of two levels a value crossed, or undefined. */
function levelOf(
  value: number,
  degradedAt: number | undefined,
  downAt: number | undefined,
): HealthFinding['level'] | undefined {
  if (downAt !== undefined && value >= downAt) return 'down';
  if (degradedAt !== undefined && value >= degradedAt) return 'degraded';
  return undefined;
}

/** Findings of the oldest-pending-age and dead-letter thresholds, from what the workers recorded. */
export function thresholdFindings(signals: HealthSignals, thresholds: ResolvedHealthThresholds): HealthFinding[] {
  const findings: HealthFinding[] = [];
  const { degradedAfterMs, downAfterMs } = thresholds.oldestPendingAge;
  if (degradedAfterMs !== undefined || downAfterMs !== undefined) {
    for (const { table, name, oldestAgeSeconds } of signals.oldestPendingAges) {
      const ageMs = oldestAgeSeconds * 1000;
      const level = levelOf(ageMs, degradedAfterMs, downAfterMs);
      if (!level) continue;
      const limit = (level === 'down' ? downAfterMs : degradedAfterMs)!;
      const subject = `${table}:${name}`;
      findings.push({
        level,
        kind: 'oldest-pending-age',
        subject,
        observed: ageMs,
        limit,
        message: oldestPendingTooOld(subject, ageMs, limit),
      });
    }
  }
  const { windowMs, degradedAt, downAt } = thresholds.deadLetters;
  if (degradedAt !== undefined || downAt !== undefined) {
    const count = signals.deadLettersWithin(windowMs);
    const level = levelOf(count, degradedAt, downAt);
    if (level) {
      const limit = (level === 'down' ? downAt : degradedAt)!;
      findings.push({
        level,
        kind: 'dead-letters',
        subject: 'all',
        observed: count,
        limit,
        message: deadLettersInWindow(count, limit, windowMs),
      });
    }
  }
  return findings;
}

/**
 * A loop's staleness against the stalled-loop thresholds: not ticked for N poll intervals (at
 * least `minStaleMs`) while nothing is in flight (a loop waiting for a free slot is busy, not stuck).
 */
export function stalledLoopFinding(
  loop: string,
  lastTickAgeMs: number,
  inFlight: number,
  pollIntervalMs: number,
  thresholds: ResolvedHealthThresholds,
): HealthFinding | undefined {
  if (inFlight > 0) return undefined;
  const { degradedAfterIntervals, downAfterIntervals, minStaleMs } = thresholds.stalledLoop;
  const after = (intervals: number | undefined): number | undefined =>
    intervals === undefined ? undefined : Math.max(minStaleMs, intervals * pollIntervalMs);
  const level = levelOf(lastTickAgeMs, after(degradedAfterIntervals), after(downAfterIntervals));
  if (!level) return undefined;
  const intervals = (level === 'down' ? downAfterIntervals : degradedAfterIntervals)!;
  const limit = after(intervals)!;
  return {
    level,
    kind: 'stalled-loop',
    subject: loop,
    observed: Number.isFinite(lastTickAgeMs) ? lastTickAgeMs : -1,
    limit,
    message: loopStalled(loop, lastTickAgeMs, intervals),
  };
}
