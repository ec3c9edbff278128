import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { readInt, readObject } from '../../config/options/option-readers.js';
import { MAX_INTERVAL_MS } from '../../config/queuebox.limits.js';
import { healthThresholdsOutOfOrder } from '../../shared/queuebox.messages.js';
import type { QueueBoxHealthOptions, ResolvedHealthThresholds } from './queuebox-health-options.interface.js';

const DEFAULT_DEAD_LETTER_WINDOW_MS = 15 * 60_000;
const DEFAULT_STALLED_INTERVALS = 3;
const DEFAULT_MIN_STALE_MS = 60_000;
const MAX_COUNT = 1_000_000;

/**
 * Validates the health options (a typed error naming the field, at bootstrap) and applies the
 * defaults.
 */
export function resolveHealthOptions(options: QueueBoxHealthOptions | undefined): ResolvedHealthThresholds {
  const root = readObject(options, 'health', ['oldestPendingAge', 'deadLetters', 'stalledLoop']);
  const age = readObject(root.oldestPendingAge, 'health.oldestPendingAge', ['degradedAfterMs', 'downAfterMs']);
  const dead = readObject(root.deadLetters, 'health.deadLetters', ['windowMs', 'degradedAt', 'downAt']);
  const stalled = readObject(root.stalledLoop, 'health.stalledLoop', [
    'degradedAfterIntervals',
    'downAfterIntervals',
    'minStaleMs',
  ]);
  const optional = (value: unknown, path: string, min: number, max: number): number | undefined =>
    value === undefined ? undefined : readInt(value, path, 0, min, max);
  const resolved: ResolvedHealthThresholds = {
    oldestPendingAge: {
      degradedAfterMs: optional(age.degradedAfterMs, 'health.oldestPendingAge.degradedAfterMs', 1, MAX_INTERVAL_MS),
      downAfterMs: optional(age.downAfterMs, 'health.oldestPendingAge.downAfterMs', 1, MAX_INTERVAL_MS),
    },
    deadLetters: {
      windowMs: readInt(
        dead.windowMs,
        'health.deadLetters.windowMs',
        DEFAULT_DEAD_LETTER_WINDOW_MS,
        1_000,
        MAX_INTERVAL_MS,
      ),
      degradedAt: optional(dead.degradedAt, 'health.deadLetters.degradedAt', 1, MAX_COUNT),
      downAt: optional(dead.downAt, 'health.deadLetters.downAt', 1, MAX_COUNT),
    },
    stalledLoop: {
      degradedAfterIntervals: optional(
        stalled.degradedAfterIntervals,
        'health.stalledLoop.degradedAfterIntervals',
        1,
        1_000,
      ),
      downAfterIntervals: readInt(
        stalled.downAfterIntervals,
        'health.stalledLoop.downAfterIntervals',
        DEFAULT_STALLED_INTERVALS,
        1,
        1_000,
      ),
      minStaleMs: readInt(
        stalled.minStaleMs,
        'health.stalledLoop.minStaleMs',
        DEFAULT_MIN_STALE_MS,
        0,
        MAX_INTERVAL_MS,
      ),
    },
  };
  inOrder(resolved.oldestPendingAge.degradedAfterMs, resolved.oldestPendingAge.downAfterMs, 'health.oldestPendingAge');
  inOrder(resolved.deadLetters.degradedAt, resolved.deadLetters.downAt, 'health.deadLetters');
  inOrder(resolved.stalledLoop.degradedAfterIntervals, resolved.stalledLoop.downAfterIntervals, 'health.stalledLoop');
  return resolved;
}

/** A degraded threshold must come before the down threshold of the same signal. */
function inOrder(degraded: number | undefined, down: number | undefined, path: string): void {
  if (degraded !== undefined && down !== undefined && degraded >= down) {
    throw new InvalidQueueBoxOptionsError(path, healthThresholdsOutOfOrder(path, degraded, down));
  }
}
