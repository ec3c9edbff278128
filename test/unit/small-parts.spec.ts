import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRetryAfter } from '../../lib/features/publishers/retry-after.js';
import { uuidv7 } from '../../lib/features/outbox/message-id.js';
import { CoalescedNotifier } from '../../lib/engine/wakeup/coalesced-notifier.js';

describe('uuidv7', () => {
  it('is a version 7 UUID whose first 48 bits are the time, so ids sort by creation', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(1_700_000_000_000);
    expect(a < b).toBe(true);
    expect(uuidv7()).not.toBe(uuidv7());
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfter('30', 0)).toBe(30_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });
});

describe('CoalescedNotifier', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first signal at once and folds the signals of one window into one more', async () => {
    vi.useFakeTimers();
    const send = vi.fn(async () => undefined);
    const notifier = new CoalescedNotifier(20, send);
    notifier.signal();
    expect(send).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i++) notifier.signal();
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(100);
    expect(send).toHaveBeenCalledTimes(2);
    await notifier.close();
    notifier.signal();
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('lead() takes the leading edge of an idle window: the caller notifies, and signals within the window fold into one more', async () => {
    vi.useFakeTimers();
    const send = vi.fn(async () => undefined);
    const notifier = new CoalescedNotifier(20, send);
    expect(notifier.lead()).toBe(true);
    // A window is open: nobody else leads it, and the caller's notification counts as its first.
    expect(notifier.lead()).toBe(false);
    expect(send).toHaveBeenCalledTimes(0);
    notifier.signal();
    notifier.signal();
    expect(send).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(send).toHaveBeenCalledTimes(1);
    // The trailing notification opened a window of its own.
    expect(notifier.lead()).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(notifier.lead()).toBe(true);
    await notifier.close();
    expect(notifier.lead()).toBe(false);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('close() sends a signal still waiting in the window, once, and nothing after', async () => {
    vi.useFakeTimers();
    const send = vi.fn(async () => undefined);
    const notifier = new CoalescedNotifier(60_000, send);
    notifier.signal();
    notifier.signal();
    expect(send).toHaveBeenCalledTimes(1);
    await notifier.close();
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(120_000);
    notifier.signal();
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('close() waits for a send in progress', async () => {
    let finish!: () => void;
    const notifier = new CoalescedNotifier(20, () => new Promise<void>((resolve) => (finish = resolve)));
    notifier.signal();
    let closed = false;
    const closing = notifier.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(closed).toBe(true);
  });
});
