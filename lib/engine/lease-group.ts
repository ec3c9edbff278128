import { ClaimLostError } from '../shared/errors/claim-lost.error.js';
import type { Claim } from '../shared/interfaces/claim.interface.js';
import { claimLost } from '../shared/queuebox.messages.js';

/** How a lease group reports a claim it could not keep. */
export type ClaimLossHandler = (lease: Lease, cause: unknown) => void;

/**
 * The lease of one claimed row while its work runs. Its `signal` aborts when the claim is lost or
 * the owner cancels the work (shutdown); it is created on first read, since most work never asks.
 */
export class Lease {
  detail?: object;
  private controller?: AbortController;
  private cancelled?: unknown;
  private isLost = false;

  constructor(
    readonly claim: Claim,
    private readonly group: LeaseGroup,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled !== undefined) this.controller.abort(this.cancelled);
    }
    return this.controller.signal;
  }

  get lost(): boolean {
    return this.isLost;
  }

  get aborted(): boolean {
    return this.cancelled !== undefined;
  }

  release(): void {
    this.group.remove(this);
  }

  /** Aborts the signal without declaring the claim lost (shutdown); renewal goes on until `release()`. */
  cancel(reason: unknown): void {
    if (this.cancelled !== undefined) return;
    this.cancelled = reason;
    this.controller?.abort(reason);
  }

  /** Declares the claim lost (a renewal or a fenced write said so). Idempotent; true the first time. */
  markLost(cause: unknown): boolean {
    if (this.isLost) return false;
    this.isLost = true;
    this.group.remove(this);
    this.cancel(
      cause instanceof ClaimLostError
        ? cause
        : new ClaimLostError(this.claim.component, this.claim.id, claimLost(this.claim.component, this.claim.id), {
            cause,
          }),
    );
    return true;
  }
}

/**
 * Keeps the leases of every row a worker has in flight, with one renewal statement per third of the
 * lease for all of them. A row found lost (every row, when the renewal fails) aborts and calls `onLost` once.
 */
export class LeaseGroup {
  private readonly leases = new Map<string, Lease>();
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly leaseMs: number,
    private readonly renewMany: (claims: readonly Claim[]) => Promise<Claim[]>,
    private readonly onLost: ClaimLossHandler,
    /** Called for each lease a renewal kept (the lease advisor counts them). */
    private readonly onRenewed?: (lease: Lease) => void,
  ) {}

  add(claim: Claim): Lease {
    const lease = new Lease(claim, this);
    this.leases.set(claim.id, lease);
    this.schedule();
    return lease;
  }

  /**
   * NOTE: the renewal timer stays set when the last lease goes: a key's hand-off keeps one row in
   * flight at a time, and clearing the timer for each row and setting it for the next cost two
   * timer-list operations a message. A timer set for an earlier lease fires sooner than a third of
   * a later one's lease, never later; finding no lease, it renews nothing and lapses.
   */
  remove(lease: Lease): void {
    if (this.leases.get(lease.claim.id) === lease) this.leases.delete(lease.claim.id);
  }

  cancelAll(reason: unknown): void {
    for (const lease of this.leases.values()) lease.cancel(reason);
  }

  get size(): number {
    return this.leases.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unschedule();
    await this.renewing;
  }

  private schedule(): void {
    if (this.timer || this.renewing || this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.leases.size === 0) return;
        this.renewing = this.renewAll().finally(() => {
          this.renewing = undefined;
          if (this.leases.size > 0) this.schedule();
        });
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    this.timer.unref();
  }

  private unschedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async renewAll(): Promise<void> {
    const leases = [...this.leases.values()];
    let lost: readonly Claim[];
    let cause: unknown;
    try {
      lost = await this.renewMany(leases.map((lease) => lease.claim));
    } catch (error) {
      // A renewal that fails is a loss (the spec's rule): the work cannot know it still owns the row.
      lost = leases.map((lease) => lease.claim);
      cause = error;
    }
    const lostIds = new Set(lost.map((claim) => claim.id));
    for (const lease of leases) {
      // A lease released while the renewal ran belongs to work that already finished its row.
      if (this.leases.get(lease.claim.id) !== lease) continue;
      if (!lostIds.has(lease.claim.id)) {
        this.onRenewed?.(lease);
        continue;
      }
      const reason =
        cause ??
        new ClaimLostError(lease.claim.component, lease.claim.id, claimLost(lease.claim.component, lease.claim.id));
      if (lease.markLost(reason)) this.onLost(lease, reason);
    }
  }
}
