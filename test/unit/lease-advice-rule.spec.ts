import { describe, expect, it } from 'vitest';
import {
  adviseLease,
  LEASE_MIN_SAMPLES,
  LEASE_UTILIZATION_THRESHOLD,
} from '../../lib/engine/leases/lease-advice-rule.js';
import { LeaseWindow } from '../../lib/engine/leases/lease-window.js';

const windowOf = (ratios: number[], lost: number[] = [], size = 100): LeaseWindow => {
  const window = new LeaseWindow(size, LEASE_UTILIZATION_THRESHOLD);
  ratios.forEach((ratio, index) => window.add(ratio, lost.includes(index)));
  return window;
};

describe('lease advice rule', () => {
  it('advises nothing while p95 stays under 0.8 of the lease and no claim was lost', () => {
    expect(
      adviseLease('outbox', 'billing', 10_000, windowOf(Array.from({ length: 100 }, (_, i) => (i < 95 ? 0.5 : 0.9)))),
    ).toBeUndefined();
  });

  it('advises twice the p99 processing time, in whole seconds, once p95 reaches 0.8', () => {
    const advice = adviseLease(
      'outbox',
      'billing',
      10_000,
      windowOf(Array.from({ length: 100 }, (_, i) => (i < 90 ? 0.5 : 0.85))),
    );
    expect(advice).toMatchObject({
      option: 'outbox.claimTimeoutMs',
      reason: 'utilization',
      recommendedLeaseMs: 17_000,
      samples: 100,
      claimsLost: 0,
    });
    expect(advice!.utilization).toEqual({ p50: 0.5, p95: 0.85, p99: 0.85, max: 0.85 });
  });

  it('needs a few rows before utilization alone counts, but a lost claim counts at once', () => {
    expect(adviseLease('relay', 'orders', 5_000, windowOf(Array(LEASE_MIN_SAMPLES - 1).fill(0.95)))).toBeUndefined();
    expect(adviseLease('relay', 'orders', 5_000, windowOf([0.1], [0]))).toMatchObject({
      option: 'inbox.relay.claimTimeoutMs',
      reason: 'claims-lost',
      recommendedLeaseMs: 10_000,
      claimsLost: 1,
    });
  });

  it('forgets rows that slid out of the window, lost claims included', () => {
    const window = windowOf([0.1, 0.1], [0], 2);
    window.add(0.1, false);
    window.add(0.1, false);
    expect(window.lost).toBe(0);
    expect(adviseLease('pull', 'audit', 1_000, window)).toBeUndefined();
  });
});

describe('lease window', () => {
  it('knows whether the nearest-rank p95 reaches the threshold without sorting, as the rows slide', () => {
    const window = new LeaseWindow(20, 0.8);
    const values: number[] = [];
    const seen = new Set<boolean>();
    for (let i = 0; i < 200; i++) {
      const value = (i * 37) % 100 >= 90 ? 0.9 + (i % 3) / 10 : ((i * 13) % 80) / 100;
      window.add(value, false);
      values.push(value);
      const last = values.slice(-20);
      expect(window.p95AtOrAboveThreshold, `after ${i + 1} rows`).toBe(window.percentiles().p95 >= 0.8);
      expect(window.samples).toBe(last.length);
      seen.add(window.p95AtOrAboveThreshold);
    }
    expect([...seen].sort()).toEqual([false, true]);
  });
});
