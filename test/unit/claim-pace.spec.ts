import { describe, expect, it } from 'vitest';
import {
  AdaptivePace,
  type ClaimPace,
  FixedPace,
  MIN_PACE_WINDOW_MS,
  PACE_WINDOW_MS,
} from '../../lib/engine/claim-pace.js';
import { RELAY_PACE_BOUNDS } from '../../lib/config/options/pace-bounds.js';
import { OUTBOX_PACE_BOUNDS } from '../../lib/config/options/pace-bounds.js';

const LEASE_MS = 300_000;

/** An adaptive pace on a fake clock: each `window` feeds one window's figures, then ticks past its end. */
class PaceDriver {
  readonly pace: AdaptivePace;
  private now = 1_000;

  constructor(bounds = OUTBOX_PACE_BOUNDS, leaseMs = LEASE_MS) {
    this.pace = new AdaptivePace(bounds, leaseMs);
    this.pace.observe(this.now);
  }

  /**
   * One window: claims that came back full (or not), the rows in flight after them (a share of
   * the limit), and `ok` / `failed` outcomes whose work took `ms` each.
   */
  window(figures: {
    full?: boolean;
    inFlightShare?: number;
    ok?: number;
    failed?: number;
    ms?: number;
    claims?: number;
  }): boolean {
    const { full = true, inFlightShare = 1, ok = 100, failed = 0, ms = 1, claims = 2 } = figures;
    const { batchSize, concurrency } = this.pace;
    for (let i = 0; i < claims; i++)
      this.pace.claimed(
        batchSize,
        full ? batchSize : Math.floor(batchSize / 2),
        Math.floor(inFlightShare * concurrency),
      );
    for (let i = 0; i < ok; i++) this.pace.record('ok', ms);
    for (let i = 0; i < failed; i++) this.pace.record('failed', ms);
    // A tick inside the window decides nothing; one past the shortest window decides only once
    // the window has seen a full claim and a whole limit's worth of outcomes.
    expect(this.pace.observe(this.now + MIN_PACE_WINDOW_MS - 1)).toBe(false);
    const turnedOver = full && claims > 0 && ok + failed >= concurrency;
    if (!turnedOver) expect(this.pace.observe(this.now + PACE_WINDOW_MS - 1)).toBe(false);
    this.now += PACE_WINDOW_MS;
    return this.pace.observe(this.now);
  }
}

describe('AdaptivePace', () => {
  it('starts at the documented start values, the batch at half the concurrency', () => {
    expect(new AdaptivePace(OUTBOX_PACE_BOUNDS, LEASE_MS)).toMatchObject({
      concurrency: 100,
      batchSize: 50,
      adaptive: true,
    });
    expect(new AdaptivePace(RELAY_PACE_BOUNDS, LEASE_MS)).toMatchObject({ concurrency: 20, batchSize: 10 });
  });

  it('grows ×1.5 per window while the backlog is deep, the limit binds and publishes are healthy, up to the max', () => {
    const driver = new PaceDriver();
    expect(driver.window({})).toBe(true);
    expect(driver.pace).toMatchObject({ concurrency: 150, batchSize: 75 });
    expect(driver.window({})).toBe(true);
    expect(driver.pace.concurrency).toBe(225);
    for (let i = 0; i < 10; i++) driver.window({});
    expect(driver.pace).toMatchObject({ concurrency: 1_000, batchSize: 500 });
    expect(driver.window({})).toBe(false);
  });

  it('ends a window early, after the shortest window, once it saw a full claim and a whole limit of outcomes: a deep backlog ramps with its work', () => {
    const pace = new AdaptivePace(OUTBOX_PACE_BOUNDS, LEASE_MS);
    let now = 1_000;
    pace.observe(now);
    const turn = (outcomes: number) => {
      pace.claimed(pace.batchSize, pace.batchSize, pace.concurrency);
      for (let i = 0; i < outcomes; i++) pace.record('ok', 1);
    };
    turn(100);
    expect(pace.observe(now + MIN_PACE_WINDOW_MS - 1)).toBe(false);
    now += MIN_PACE_WINDOW_MS;
    expect(pace.observe(now)).toBe(true);
    expect(pace.concurrency).toBe(150);
    // One outcome short of the limit: the window runs its full length.
    turn(149);
    expect(pace.observe(now + MIN_PACE_WINDOW_MS)).toBe(false);
    expect(pace.observe(now + PACE_WINDOW_MS - 1)).toBe(false);
    expect(pace.observe(now + PACE_WINDOW_MS)).toBe(true);
    expect(pace.concurrency).toBe(225);
  });

  it('holds when the last claim came back short (no deep backlog) or the rows in flight stay under 80 % of the limit', () => {
    const driver = new PaceDriver();
    expect(driver.window({ full: false })).toBe(false);
    expect(driver.window({ inFlightShare: 0.7 })).toBe(false);
    expect(driver.window({ claims: 0 })).toBe(false);
    expect(driver.window({ ok: 0 })).toBe(false);
    expect(driver.pace.concurrency).toBe(100);
    expect(driver.window({ inFlightShare: 0.8 })).toBe(true);
    expect(driver.pace.concurrency).toBe(150);
  });

  it('halves on 10 % failed outcomes or more, over at least 10 outcomes, down to the floor', () => {
    const driver = new PaceDriver();
    driver.window({ ok: 90, failed: 9 });
    expect(driver.pace.concurrency).toBe(150);
    driver.window({ ok: 90, failed: 10 });
    expect(driver.pace).toMatchObject({ concurrency: 75, batchSize: 37 });
    // Under 10 outcomes a failure is noise: no change (and no growth: nothing healthy enough).
    driver.window({ ok: 0, failed: 9 });
    expect(driver.pace.concurrency).toBe(75);
    for (let i = 0; i < 10; i++) driver.window({ ok: 0, failed: 50 });
    expect(driver.pace).toMatchObject({ concurrency: 10, batchSize: 5 });
  });

  it('halves under lease pressure: the p90 work time at a quarter of the lease', () => {
    const driver = new PaceDriver(OUTBOX_PACE_BOUNDS, 4_000);
    driver.window({ ok: 100, ms: 10 });
    expect(driver.pace.concurrency).toBe(150);
    // 85 quick, 15 at 1 s (a quarter of the 4 s lease): the p90 is 1 s.
    for (let i = 0; i < 15; i++) driver.pace.record('ok', 1_000);
    driver.window({ ok: 85, ms: 10 });
    expect(driver.pace.concurrency).toBe(75);
  });

  it('shrinks ×0.8 when the p50 work time passes twice the baseline plus 5 ms (a slowing destination)', () => {
    const driver = new PaceDriver();
    driver.window({ ms: 10 });
    expect(driver.pace.baseline).toBe(10);
    expect(driver.pace.concurrency).toBe(150);
    // 25 ms is the threshold itself: still healthy.
    driver.window({ ms: 25 });
    expect(driver.pace.concurrency).toBe(225);
    driver.window({ ms: 26 });
    expect(driver.pace.concurrency).toBe(180);
    expect(driver.pace.baseline).toBe(10);
  });

  it('takes the p50 seen at the floor as the new baseline, so a slower destination does not pin the floor', () => {
    const driver = new PaceDriver();
    driver.window({ ms: 2 });
    for (let i = 0; i < 13; i++) driver.window({ ms: 40 });
    expect(driver.pace.concurrency).toBe(10);
    expect(driver.pace.baseline).toBe(40);
    // Healthy again against the new baseline: it grows.
    driver.window({ ms: 40 });
    expect(driver.pace.concurrency).toBe(15);
  });

  it('keeps every value within the relay bounds', () => {
    const driver = new PaceDriver(RELAY_PACE_BOUNDS);
    for (let i = 0; i < 20; i++) driver.window({});
    expect(driver.pace).toMatchObject({ concurrency: 200, batchSize: 100 });
    for (let i = 0; i < 20; i++) driver.window({ ok: 0, failed: 20 });
    expect(driver.pace).toMatchObject({ concurrency: 5, batchSize: 5 });
  });

  it('decides once per window, on the first tick after its end', () => {
    const pace = new AdaptivePace(OUTBOX_PACE_BOUNDS, LEASE_MS);
    pace.claimed(50, 50, 100);
    pace.record('ok', 1);
    // The first tick opens the window; the figures before it count in it.
    expect(pace.observe(0)).toBe(false);
    expect(pace.observe(PACE_WINDOW_MS - 1)).toBe(false);
    expect(pace.observe(PACE_WINDOW_MS + 40)).toBe(true);
    expect(pace.concurrency).toBe(150);
    // A new window: its figures start empty.
    expect(pace.observe(2 * PACE_WINDOW_MS + 40)).toBe(false);
  });
});

describe('FixedPace', () => {
  it('keeps the values a user set, whatever the loop sees', () => {
    const pace: ClaimPace = new FixedPace(7, 3);
    pace.claimed(3, 3, 7);
    for (let i = 0; i < 100; i++) pace.record('failed', 1);
    expect(pace.observe(0)).toBe(false);
    expect(pace.observe(10 * PACE_WINDOW_MS)).toBe(false);
    expect(pace).toMatchObject({ concurrency: 7, batchSize: 3, adaptive: false });
  });
});
