import { Logger } from '@nestjs/common';
import type { Claim, FenceResult } from '../interfaces/claim.interface.js';
import { type ClaimLossHandler, LeaseKeeper } from '../claims/lease-keeper.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import { performance } from 'node:perf_hooks';
import { shutdownLeftRows, shutdownReason } from '../queuebox.messages.js';
import { abortableDelay, whenAborted } from './abortable.js';
import { errorText } from './error-text.js';
import { PollLoop, type PollLoopState, type TickResult } from './poll-loop.js';

/** How a claim worker paces itself. */
export interface ClaimWorkerSettings {
  /** Loop name in logs, metrics and health. */
  name: string;
  pollIntervalMs: number;
  batchSize: number;
  concurrency: number;
  shutdownTimeoutMs: number;
  /** Run `reclaim()` at most this often (claimTimeoutMs / 5); never when undefined. */
  reclaimEveryMs?: number;
  /** Run `sample()` (backlog gauges) at most this often. */
  sampleEveryMs?: number;
  onLoopError?(): void;
}

/** What health checks read of a worker. */
export interface ClaimWorkerStatus {
  state: PollLoopState;
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
  inFlight: number;
}

/**
 * The loop shared by the outbox poller, the inbox relay and pull workers: claim up to the free
 * publish/handle slots, process each row concurrently, reclaim and sample on their cadence, and
 * drain on shutdown. Subclasses say how to claim and process a row; every fenced write and every
 * loss is theirs to handle.
 */
export abstract class ClaimWorker<Row> {
  protected readonly logger: Logger;
  protected readonly loop: PollLoop;
  /** Aborted when shutdown stops waiting for the work still running. */
  protected readonly abandon = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  /** Leases of the rows in flight, so that shutdown can cancel their work. */
  private readonly keepers = new Set<LeaseKeeper>();
  private slotFreed?: () => void;
  private lastReclaimAt = -Infinity;
  private lastSampleAt = -Infinity;

  constructor(protected readonly settings: ClaimWorkerSettings) {
    this.logger = new Logger(settings.name);
    this.loop = new PollLoop({
      name: settings.name,
      intervalMs: settings.pollIntervalMs,
      tick: (signal) => this.tick(signal),
      onError: () => settings.onLoopError?.(),
    });
  }

  /** Claims up to `count` rows. */
  protected abstract claim(count: number): Promise<Row[]>;
  /** Processes one claimed row to its end. Must not throw. */
  protected abstract process(row: Row): Promise<void>;
  /** Returns expired claims to pending. */
  protected reclaim?(): Promise<void>;
  /** Samples gauges. Failures are logged, never fatal. */
  protected sample?(): Promise<void>;

  get status(): ClaimWorkerStatus {
    const { state, lastTickAt, lastError, consecutiveErrors } = this.loop;
    return { state, lastTickAt, lastError, consecutiveErrors, inFlight: this.inFlight.size };
  }

  protected startLoop(): void {
    this.loop.start();
    const { batchSize, concurrency, pollIntervalMs } = this.settings;
    this.logger.log(`started: ${this.describe()}, batch ${batchSize}, concurrency ${concurrency}, poll interval ${pollIntervalMs} ms`);
  }

  /** What this worker works on, for its start-up line (a destination list, a source and its lease, …). */
  protected abstract describe(): string;

  /**
   * Starts keeping the lease of a claimed row. Its signal aborts when the claim is lost or the
   * worker cancels its work; one signal per row, no long-lived parent signal to accumulate
   * listeners.
   */
  protected keepLease(claim: Claim, renew: (claim: Claim) => Promise<FenceResult>, onLost: ClaimLossHandler): LeaseKeeper {
    const keeper = new LeaseKeeper(claim, renew, onLost, (stopped) => this.keepers.delete(stopped));
    this.keepers.add(keeper);
    return keeper.start();
  }

  /**
   * Runs `work` for a claimed row under a kept lease, work that ends with the row's fenced
   * finishing write. `done`: it succeeded. `left`: the claim was lost (the keeper logged and
   * counted it, or a `ClaimLostError` from the finishing write is reported to it now) or
   * shutdown gave up on the row; nothing more may be written. `failed`: the work threw; the
   * caller decides between retry and dead-letter, with a fenced write.
   */
  protected async runLeased(
    claim: Claim,
    renew: (claim: Claim) => Promise<FenceResult>,
    onLost: ClaimLossHandler,
    work: (keeper: LeaseKeeper) => Promise<void>,
  ): Promise<{ outcome: 'done' } | { outcome: 'left' } | { outcome: 'failed'; error: unknown }> {
    const keeper = this.keepLease(claim, renew, onLost);
    try {
      await work(keeper);
      await keeper.stop();
      return { outcome: 'done' };
    } catch (error) {
      await keeper.stop();
      if (keeper.lost || this.abandon.signal.aborted) return { outcome: 'left' };
      if (error instanceof ClaimLostError) {
        keeper.markLost(error);
        return { outcome: 'left' };
      }
      return { outcome: 'failed', error };
    }
  }

  /** Aborts the signal of every row in flight (their leases keep being renewed until they end). */
  protected cancelInFlight(reason: unknown): void {
    for (const keeper of this.keepers) keeper.cancel(reason);
  }

  /** Claim now: new rows may be claimable. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Stops claiming, waits up to `shutdownTimeoutMs` for the rows in flight, then aborts what is
   * left (`abandon`) and returns; those rows stay `processing` until their lease ends and are
   * reclaimed (docs/concepts/claims-and-leases.md, "Reclaim").
   */
  protected async drain(): Promise<void> {
    if (this.loop.state !== 'running') return;
    await this.loop.stop();
    const waited = new AbortController();
    const drained = Promise.allSettled(this.inFlight).then(() => true);
    const timedOut = abortableDelay(this.settings.shutdownTimeoutMs, waited.signal).then(() => false);
    const inTime = this.inFlight.size === 0 || (await Promise.race([drained, timedOut]));
    waited.abort();
    if (inTime) {
      this.logger.log('stopped: nothing left in flight');
      return;
    }
    this.logger.warn(shutdownLeftRows(this.inFlight.size, this.settings.shutdownTimeoutMs));
    const reason = new Error(shutdownReason());
    this.abandon.abort(reason);
    this.cancelInFlight(reason);
  }

  private async tick(signal: AbortSignal): Promise<TickResult> {
    const now = performance.now();
    if (this.reclaim && this.settings.reclaimEveryMs !== undefined && now - this.lastReclaimAt >= this.settings.reclaimEveryMs) {
      this.lastReclaimAt = now;
      await this.reclaim();
    }
    if (this.sample && this.settings.sampleEveryMs !== undefined && now - this.lastSampleAt >= this.settings.sampleEveryMs) {
      this.lastSampleAt = now;
      await this.sample().catch((error) => this.logger.warn({ message: 'gauge sample failed', error: errorText(error) }));
    }
    const free = this.settings.concurrency - this.inFlight.size;
    // While busy, claim in worthwhile batches: a claim per freed slot would cost a statement per
    // row. Idle workers (nothing in flight) claim at once, so latency does not suffer.
    if (free <= 0 || (this.inFlight.size > 0 && free < Math.ceil(Math.min(this.settings.batchSize, this.settings.concurrency) / 2))) {
      await this.nextFreeSlot(signal);
      return 'more';
    }
    const wanted = Math.min(this.settings.batchSize, free);
    const rows = await this.claim(wanted);
    for (const row of rows) this.track(this.process(row));
    // A short claim has seen everything claimable now: sleep until woken
    // (docs/internals/claim-sql.md, "Claim cost").
    return rows.length === wanted ? 'more' : 'idle';
  }

  private track(task: Promise<void>): void {
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      this.slotFreed?.();
    });
  }

  private nextFreeSlot(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let dispose = (): void => undefined;
      const done = (): void => {
        this.slotFreed = undefined;
        dispose();
        resolve();
      };
      this.slotFreed = done;
      dispose = whenAborted(signal, done);
    });
  }
}
