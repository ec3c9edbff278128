import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PollLoop, type TickResult } from '../../lib/engine/poll-loop.js';

describe('PollLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // The loop logs each failed tick; these tests fail ticks on purpose.
    Logger.overrideLogger(false);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function loopWith(results: TickResult[] | (() => Promise<TickResult>), intervalMs = 1_000) {
    const ticks: number[] = [];
    let running = 0;
    let overlapped = false;
    const tick = async () => {
      running += 1;
      if (running > 1) overlapped = true;
      ticks.push(Date.now());
      try {
        if (typeof results === 'function') return await results();
        return results.shift() ?? 'idle';
      } finally {
        running -= 1;
      }
    };
    const loop = new PollLoop({ name: 'test', intervalMs, tick });
    return { loop, ticks, overlapped: () => overlapped };
  }

  it('runs the next tick at once after "more" and sleeps the interval after "idle"', async () => {
    const { loop, ticks } = loopWith(['more', 'more', 'idle', 'idle']);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(999);
    expect(ticks).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticks).toHaveLength(4);
    await loop.stop();
  });

  it('wake() cuts the sleep short, and a wake during a tick skips the next sleep', async () => {
    let wakeDuringTick = false;
    const { loop, ticks } = loopWith(async () => {
      if (wakeDuringTick) {
        wakeDuringTick = false;
        loop.wake();
      }
      return 'idle';
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(1);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(2);
    wakeDuringTick = true;
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(4);
    await loop.stop();
  });

  it('never overlaps ticks, however long one takes', async () => {
    const { loop, overlapped } = loopWith(() => new Promise((resolve) => setTimeout(() => resolve('more'), 5_000)));
    loop.start();
    for (let i = 0; i < 5; i++) {
      loop.wake();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(overlapped()).toBe(false);
    const stopping = loop.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    await stopping;
  });

  it('keeps running after failures, backing off and recording them', async () => {
    let calls = 0;
    const { loop } = loopWith(async () => {
      calls += 1;
      if (calls <= 2) throw new Error('database down');
      return 'idle';
    }, 100);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(loop.consecutiveErrors).toBe(1);
    expect(String(loop.lastError)).toContain('database down');
    await vi.advanceTimersByTimeAsync(200);
    expect(loop.consecutiveErrors).toBe(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(loop.consecutiveErrors).toBe(0);
    expect(loop.state).toBe('running');
    await loop.stop();
    expect(loop.state).toBe('stopped');
  });

  it('stop() interrupts the sleep', async () => {
    const { loop } = loopWith(['idle'], 60_000);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    await loop.stop();
    expect(loop.state).toBe('stopped');
  });

  it('stop() that lands while a tick runs returns when the tick ends, not a poll interval later', async () => {
    let finishTick!: () => void;
    const { loop, ticks } = loopWith(
      () => new Promise<TickResult>((resolve) => (finishTick = () => resolve('idle'))),
      60_000,
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    finishTick();
    // No timer may need to fire: the sleep after the tick must see the abort that came before it.
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
    await stopping;
  });

  it('stop() during a failing tick skips the error back-off', async () => {
    let failTick!: () => void;
    const { loop } = loopWith(
      () => new Promise<TickResult>((_, reject) => (failTick = () => reject(new Error('boom')))),
      60_000,
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    failTick();
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
    await stopping;
  });
});
