import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Claim, FenceResult } from '../../lib/interfaces/claim.interface.js';
import { LeaseKeeper } from '../../lib/claims/lease-keeper.js';
import { ClaimLostError } from '../../lib/errors/claim-lost.error.js';

const claim: Claim = { component: 'outbox', id: '7', token: 't', leaseMs: 3_000 };

describe('LeaseKeeper', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('renews every third of the lease until stopped', async () => {
    const renew = vi.fn(async (): Promise<FenceResult> => 'ok');
    const keeper = new LeaseKeeper(claim, renew, vi.fn()).start();
    await vi.advanceTimersByTimeAsync(999);
    expect(renew).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(renew).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(renew).toHaveBeenCalledTimes(3);
    await keeper.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renew).toHaveBeenCalledTimes(3);
    expect(keeper.signal.aborted).toBe(false);
  });

  it('a renewal that changes no row aborts the signal with ClaimLostError, reports once and renews no more', async () => {
    const renew = vi.fn(async (): Promise<FenceResult> => 'lost');
    const onLost = vi.fn();
    const keeper = new LeaseKeeper(claim, renew, onLost).start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(keeper.lost).toBe(true);
    expect(keeper.signal.reason).toBeInstanceOf(ClaimLostError);
    expect(onLost).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renew).toHaveBeenCalledTimes(1);
    keeper.markLost(new Error('again'));
    expect(onLost).toHaveBeenCalledTimes(1);
  });

  it('a renewal that fails is a loss too, with the failure as its cause', async () => {
    const failure = new Error('connection reset');
    const onLost = vi.fn();
    const keeper = new LeaseKeeper(claim, async () => Promise.reject(failure), onLost).start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(onLost).toHaveBeenCalledWith(claim, failure);
    expect((keeper.signal.reason as ClaimLostError).cause).toBe(failure);
  });

  it('stop() waits for a renewal in flight, and a loss it reports afterwards changes nothing', async () => {
    let answer!: (result: FenceResult) => void;
    const onLost = vi.fn();
    const keeper = new LeaseKeeper(claim, () => new Promise((resolve) => (answer = resolve)), onLost).start();
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = keeper.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    answer('lost');
    await stopping;
    expect(onLost).not.toHaveBeenCalled();
    expect(keeper.signal.aborted).toBe(false);
  });

  it('cancel() aborts the work without declaring the claim lost, and renewal goes on until stop()', async () => {
    const renew = vi.fn(async (): Promise<FenceResult> => 'ok');
    const keeper = new LeaseKeeper(claim, renew, vi.fn()).start();
    keeper.cancel(new Error('shutdown'));
    expect(keeper.signal.aborted).toBe(true);
    expect(keeper.lost).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(renew).toHaveBeenCalledTimes(2);
    await keeper.stop();
  });
});
