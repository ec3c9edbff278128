import { ClaimLostError } from '../errors/claim-lost.error.js';
import { claimLost } from '../queuebox.messages.js';
import type { Claim, FenceResult } from '../interfaces/claim.interface.js';

/** How a lease keeper reports the end of a claim it could not keep. */
export type ClaimLossHandler = (claim: Claim, cause: unknown) => void;

/**
 * Keeps one claim alive while its work runs: renews every third of the lease
 * (docs/concepts/claims-and-leases.md, "Renewal").
 * A renewal that changes no row, or fails, means the claim is lost: the keeper aborts `signal`
 * with a `ClaimLostError`, calls `onLost` once, and renews no more.
 *
 * NOTE: `stop()` awaits a renewal in flight. A pull worker must stop its keeper before it
 * completes the row in its business transaction: a renewal on another connection would wait for
 * that transaction's row lock and then report a loss that did not happen.
 */
export class LeaseKeeper {
  private readonly controller = new AbortController();
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private stopped = false;
  private isLost = false;

  constructor(
    readonly claim: Claim,
    private readonly renew: (claim: Claim) => Promise<FenceResult>,
    private readonly onLost: ClaimLossHandler,
    /** Called once by `stop()`: the owner stops tracking this keeper. */
    private readonly onStopped?: (keeper: LeaseKeeper) => void,
  ) {}

  /** Aborts when the claim is lost, or when the owner cancels the work (shutdown). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once a renewal or a fenced write found the claim lost. */
  get lost(): boolean {
    return this.isLost;
  }

  /**
   * Aborts `signal` without declaring the claim lost (shutdown begins, or gave up waiting).
   * Renewal goes on until `stop()`: work that ends in time can still finish its row.
   */
  cancel(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  start(): this {
    this.schedule();
    return this;
  }

  /** Stops renewing and waits for a renewal in flight to settle. */
  async stop(): Promise<void> {
    if (!this.stopped) this.onStopped?.(this);
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped || this.lost) return;
    this.timer = setTimeout(() => {
      this.inFlight = this.renewOnce().finally(() => {
        this.inFlight = undefined;
        this.schedule();
      });
    }, Math.max(1, Math.floor(this.claim.leaseMs / 3)));
    this.timer.unref();
  }

  private async renewOnce(): Promise<void> {
    let outcome: unknown;
    try {
      if ((await this.renew(this.claim)) === 'ok') return;
      outcome = new ClaimLostError(this.claim.component, this.claim.id, claimLost(this.claim.component, this.claim.id));
    } catch (error) {
      outcome = error;
    }
    // A renewal that lost or failed after stop() changes nothing: the work already finished.
    if (this.stopped) return;
    this.markLost(outcome);
  }

  /** Declares the claim lost (a renewal or a fenced write said so). Idempotent. */
  markLost(cause: unknown): void {
    if (this.isLost) return;
    this.isLost = true;
    const reason = cause instanceof ClaimLostError ? cause : new ClaimLostError(this.claim.component, this.claim.id, claimLost(this.claim.component, this.claim.id), { cause });
    this.cancel(reason);
    clearTimeout(this.timer);
    this.onLost(this.claim, cause);
  }
}
