import { describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError } from '../../lib/index.js';
import { resolveHealthOptions } from '../../lib/surfaces/health/resolve-health-options.js';
import type { QueueBoxHealthOptions } from '../../lib/surfaces/health/queuebox-health-options.interface.js';

const pathOf = (options: unknown): string => {
  try {
    resolveHealthOptions(options as QueueBoxHealthOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    return (error as InvalidQueueBoxOptionsError).path;
  }
  throw new Error('accepted');
};

describe('health options', () => {
  it('defaults: only the stalled-loop threshold is on (3 poll intervals, at least a minute)', () => {
    expect(resolveHealthOptions(undefined)).toEqual({
      oldestPendingAge: { degradedAfterMs: undefined, downAfterMs: undefined },
      deadLetters: { windowMs: 900_000, degradedAt: undefined, downAt: undefined },
      stalledLoop: { degradedAfterIntervals: undefined, downAfterIntervals: 3, minStaleMs: 60_000 },
    });
  });

  it('rejects bad values with a typed error naming the field', () => {
    expect(pathOf({ oldestPendingAge: { downAfterMs: -1 } })).toBe('health.oldestPendingAge.downAfterMs');
    expect(pathOf({ deadLetters: { windowMs: 10 } })).toBe('health.deadLetters.windowMs');
    expect(pathOf({ deadLetters: { degradedAt: 1.5 } })).toBe('health.deadLetters.degradedAt');
    expect(pathOf({ stalledLoop: { downAfterIntervals: 0 } })).toBe('health.stalledLoop.downAfterIntervals');
    expect(pathOf({ stalledLop: {} })).toBe('health.stalledLop');
    expect(pathOf({ deadLetters: { downAt: 2, degradedat: 1 } })).toBe('health.deadLetters.degradedat');
  });

  it('rejects a degraded threshold that is not below its down threshold', () => {
    expect(pathOf({ deadLetters: { degradedAt: 5, downAt: 5 } })).toBe('health.deadLetters');
    expect(pathOf({ oldestPendingAge: { degradedAfterMs: 600_000, downAfterMs: 60_000 } })).toBe(
      'health.oldestPendingAge',
    );
    expect(pathOf({ stalledLoop: { degradedAfterIntervals: 3 } })).toBe('health.stalledLoop');
  });
});
