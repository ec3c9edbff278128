import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../lib/engine/backoff.js';

const options = { initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2, jitter: 'none' as const };

describe('backoffDelay', () => {
  it('grows exponentially from the initial delay and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 50].map((attempt) => backoffDelay(attempt, options))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it('never overflows for huge attempt numbers', () => {
    expect(backoffDelay(100_000, options)).toBe(1_000);
  });

  it('full jitter spreads over [0, d] and equal jitter over [d/2, d]', () => {
    expect(backoffDelay(3, { ...options, jitter: 'full' }, () => 0)).toBe(0);
    expect(backoffDelay(3, { ...options, jitter: 'full' }, () => 0.999)).toBe(400);
    expect(backoffDelay(3, { ...options, jitter: 'equal' }, () => 0)).toBe(200);
    expect(backoffDelay(3, { ...options, jitter: 'equal' }, () => 0.999)).toBe(400);
  });
});
