import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Lease, LeaseGroup } from '../../lib/engine/lease-group.js';
import { ClaimLostError } from '../../lib/shared/errors/claim-lost.error.js';
import type { Claim } from '../../lib/shared/interfaces/claim.interface.js';

const LEASE_MS = 3_000;
const claim = (id: string): Claim => ({ component: 'pull', id, token: `t-${id}`, leaseMs: LEASE_MS });

/** A group whose renewal statement the test answers, one at a time. */
function group() {
  const renewals: { ids: string[]; answer(lost: string[]): void; fail(error: Error): void }[] = [];
  const lost: [string, unknown][] = [];
  const renewed: string[] = [];
  const leases = new LeaseGroup(
    LEASE_MS,
    (claims) =>
      new Promise((resolve, reject) =>
        renewals.push({
          ids: claims.map((c) => c.id),
          answer: (ids) => resolve(claims.filter((c) => ids.includes(c.id))),
          fail: reject,
        }),
      ),
    (lease, cause) => void lost.push([lease.claim.id, cause]),
    (lease) => void renewed.push(lease.claim.id),
  );
  return { leases, renewals, lost, renewed };
}

describe('LeaseGroup', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('renews every lease it keeps in one statement per third of the lease, and nothing while it keeps none', async () => {
    const { leases, renewals, renewed } = group();
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toEqual([]);
    leases.add(claim('1'));
    leases.add(claim('2'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3 - 1);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals.map((r) => r.ids)).toEqual([['1', '2']]);
    renewals[0].answer([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(renewed).toEqual(['1', '2']);
    // The next renewal is a third of the lease after the last one ended, never two at once.
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(renewals.map((r) => r.ids)).toEqual([
      ['1', '2'],
      ['1', '2'],
    ]);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(2);
    renewals[1].answer([]);
    await leases.stop();
  });

  it('keeps its timer when it empties: a later lease is renewed within a third of its lease, and no lease means no statement', async () => {
    const { leases, renewals } = group();
    const first = leases.add(claim('1'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 6);
    first.release();
    await vi.advanceTimersByTimeAsync(LEASE_MS / 30);
    const second = leases.add(claim('2'));
    // Due at a third of the first lease: sooner than a third of the second one's, never later.
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3 - LEASE_MS / 6 - LEASE_MS / 30);
    expect(renewals.map((r) => r.ids)).toEqual([['2']]);
    renewals[0].answer([]);
    await vi.advanceTimersByTimeAsync(0);
    second.release();
    leases.add(claim('3')).release();
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(1);
    await leases.stop();
  });

  it('a claim the renewal found lost: its signal aborts with ClaimLostError, it is reported once and renewed no more', async () => {
    const { leases, renewals, lost } = group();
    const one = leases.add(claim('1'));
    const two = leases.add(claim('2'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    renewals[0].answer(['2']);
    await vi.advanceTimersByTimeAsync(0);
    expect(two.lost).toBe(true);
    expect(two.signal.aborted).toBe(true);
    expect(two.signal.reason).toBeInstanceOf(ClaimLostError);
    expect(one.lost).toBe(false);
    expect(one.signal.aborted).toBe(false);
    expect(lost.map(([id]) => id)).toEqual(['2']);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(renewals[1].ids).toEqual(['1']);
    renewals[1].answer([]);
    await leases.stop();
  });

  it('a renewal that fails is a loss of every claim it renewed, with the failure as the cause', async () => {
    const { leases, renewals, lost } = group();
    const one = leases.add(claim('1'));
    const two = leases.add(claim('2'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    const failure = new Error('connection terminated');
    renewals[0].fail(failure);
    await vi.advanceTimersByTimeAsync(0);
    expect([one.lost, two.lost]).toEqual([true, true]);
    expect(lost).toEqual([
      ['1', failure],
      ['2', failure],
    ]);
    // Nothing left to keep: no more renewals.
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(1);
  });

  it('a lease released while its renewal runs belongs to finished work: neither kept nor lost', async () => {
    const { leases, renewals, lost, renewed } = group();
    const one = leases.add(claim('1'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    one.release();
    renewals[0].answer(['1']);
    await vi.advanceTimersByTimeAsync(0);
    expect(one.lost).toBe(false);
    expect(lost).toEqual([]);
    expect(renewed).toEqual([]);
  });

  it('cancelAll aborts the signals without declaring the claims lost; their leases are renewed until released', async () => {
    const { leases, renewals, lost } = group();
    const one: Lease = leases.add(claim('1'));
    const reason = new Error('shutdown');
    leases.cancelAll(reason);
    expect(one.signal.aborted).toBe(true);
    expect(one.signal.reason).toBe(reason);
    expect(one.lost).toBe(false);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(renewals.map((r) => r.ids)).toEqual([['1']]);
    renewals[0].answer([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(lost).toEqual([]);
    one.release();
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(1);
  });

  it('stop waits for the renewal in flight and renews no more', async () => {
    const { leases, renewals } = group();
    leases.add(claim('1'));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    let stopped = false;
    const stopping = leases.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    renewals[0].answer([]);
    await stopping;
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(1);
    leases.add(claim('2'));
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(1);
  });
});
