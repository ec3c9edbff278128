import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StatementDeadlines } from '../../lib/database/dialects/statement-deadline.js';
import { StatementTimeoutError } from '../../lib/shared/errors/statement-timeout.error.js';

/** A statement the test ends when it wants. */
function statement<T>() {
  let end!: (value: T) => void;
  let fail!: (error: Error) => void;
  const running = new Promise<T>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { work: () => running, end, fail };
}

describe('StatementDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers what the statement answers before its deadline, and expires nothing', async () => {
    const deadlines = new StatementDeadlines(1_000);
    const expire = vi.fn();
    const s = statement<string>();
    const answer = deadlines.run(expire, s.work);
    await vi.advanceTimersByTimeAsync(999);
    s.end('rows');
    await expect(answer).resolves.toBe('rows');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(expire).not.toHaveBeenCalled();
  });

  it('passes a statement failure on before the deadline', async () => {
    const deadlines = new StatementDeadlines(1_000);
    const s = statement<string>();
    const answer = deadlines.run(vi.fn(), s.work);
    s.fail(new Error('boom'));
    await expect(answer).rejects.toThrow('boom');
  });

  it('expires each statement at its own deadline, whatever ended before it, with one timer for all', async () => {
    const deadlines = new StatementDeadlines(1_000);
    const expired: string[] = [];
    const first = statement<string>();
    const a = deadlines.run(() => expired.push('a'), first.work);
    a.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(300);
    const second = statement<string>();
    const b = deadlines.run(() => expired.push('b'), second.work);
    b.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(200);
    const third = statement<string>();
    const c = deadlines.run(() => expired.push('c'), third.work);
    c.catch(() => undefined);
    second.end('early');
    await expect(b).resolves.toBe('early');
    await vi.advanceTimersByTimeAsync(499);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual(['a']);
    await expect(a).rejects.toBeInstanceOf(StatementTimeoutError);
    // b ended; c is due 1 000 ms after it started (at 500 ms).
    await vi.advanceTimersByTimeAsync(499);
    expect(expired).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual(['a', 'c']);
    await expect(c).rejects.toBeInstanceOf(StatementTimeoutError);
    // A late answer or failure of an expired statement is no news.
    first.end('late');
    third.fail(new Error('discarded'));
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands the expiry the running statement, and a work that throws at once rejects without a deadline', async () => {
    const deadlines = new StatementDeadlines(10);
    const s = statement<string>();
    const expire = vi.fn();
    const answer = deadlines.run(expire, s.work);
    answer.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(10);
    expect(expire).toHaveBeenCalledWith(expect.any(Promise));
    await expect(
      deadlines.run(vi.fn(), () => {
        throw new Error('no connection');
      }),
    ).rejects.toThrow('no connection');
  });
});
