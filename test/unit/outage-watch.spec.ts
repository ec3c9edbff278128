import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTAGE_PROBE_MS, OutageWatch } from '../../lib/engine/outage-watch.js';
import { PollLoop } from '../../lib/engine/poll-loop.js';

describe('OutageWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Logger.overrideLogger(false);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A database that is down until `up()`; counts the probes. */
  function database() {
    let answers = false;
    let probes = 0;
    return {
      probe: async () => {
        probes += 1;
        if (!answers) throw new Error('connect ECONNREFUSED');
      },
      up: () => (answers = true),
      down: () => (answers = false),
      probes: () => probes,
    };
  }

  it('resumes its waiters at the first answer after an outage, probing once per interval, and stops probing then', async () => {
    const db = database();
    const watch = new OutageWatch(db.probe);
    const resumed: string[] = [];
    const signal = new AbortController().signal;
    watch.afterOutage(() => resumed.push('a'), signal);
    watch.afterOutage(() => resumed.push('b'), signal);
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS * 5);
    expect(resumed).toEqual([]);
    // One probe per interval for both waiters, not one each.
    expect(db.probes()).toBe(6);
    db.up();
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS);
    expect(resumed).toEqual(['a', 'b']);
    const probes = db.probes();
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS * 10);
    expect(db.probes()).toBe(probes);
  });

  it('drops a waiter whose first probe answers (the database was not out) and one whose loop stopped', async () => {
    const db = database();
    db.up();
    const watch = new OutageWatch(db.probe);
    const resumed: string[] = [];
    watch.afterOutage(() => resumed.push('not out'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS * 3);
    expect(resumed).toEqual([]);
    expect(db.probes()).toBe(1);

    db.down();
    const stopped = new AbortController();
    watch.afterOutage(() => resumed.push('stopped'), stopped.signal);
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS * 3);
    stopped.abort();
    db.up();
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS * 3);
    expect(resumed).toEqual([]);
  });

  it('ends a poll loop’s error back-off when the database answers again, and only then', async () => {
    const db = database();
    const watch = new OutageWatch(db.probe);
    const ticks: number[] = [];
    const loop = new PollLoop({
      name: 'test',
      intervalMs: 1_000,
      outages: watch,
      tick: async () => {
        ticks.push(Date.now());
        await db.probe();
        return 'idle';
      },
    });
    loop.start();
    // Failures back off 2 s, 4 s, 8 s: three ticks by 6 s, the next not before 14 s.
    await vi.advanceTimersByTimeAsync(6_000);
    expect(ticks).toHaveLength(3);
    // A wake-up (a new row) does not cut a back-off short: the database still fails.
    loop.wake();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toHaveLength(3);
    db.up();
    await vi.advanceTimersByTimeAsync(OUTAGE_PROBE_MS);
    expect(ticks).toHaveLength(4);
    expect(loop.consecutiveErrors).toBe(0);
    await loop.stop();
  });
});
