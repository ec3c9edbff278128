import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { ClaimResult } from '../claims/claim.repository.js';
import { type Lease, LeaseGroup } from '../claims/lease-group.js';
import { WalkCursor } from '../claims/walk-cursor.js';
import type { ClaimRequest } from '../dialects/sql-dialect.interface.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import type { Claim, ClaimComponent } from '../interfaces/claim.interface.js';
import { shutdownLeftRows, shutdownReason } from '../queuebox.messages.js';
import { abortableDelay, whenAborted } from './abortable.js';
import { errorText } from './error-text.js';
import { PollLoop, type PollLoopState, type TickResult } from './poll-loop.js';

/** How a claim worker paces itself. */
export interface ClaimWorkerSettings {
  /** Loop name in logs, metrics and health. */
  name: string;
  component: ClaimComponent;
  pollIntervalMs: number;
  batchSize: number;
  concurrency: number;
  /** The lease of every claim; renewed every third of it while the row's work runs. */
  leaseMs: number;
  shutdownTimeoutMs: number;
  /**
   * The streams whose keys the claims walk in turn (the relay's sources, a pull worker's source);
   * undefined for the outbox, whose walk covers every (destination, key).
   */
  streams?: readonly string[];
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

/** A claimed row: its id and the token its claim wrote. */
export interface ClaimedRow {
  id: string;
  claim_token: string;
}

/**
 * Empty claims in a row after which a worker sleeps until woken, when a claim could not see the
 * whole queue (a walk cut short by its bound): the cursor moves on each time, so the next wake-up
 * or poll continues the sweep instead of sweeping everything at once.
 */
const MAX_EMPTY_CLAIMS = 2;

/**
 * The loop shared by the outbox poller, the inbox relay and pull workers: claim up to the free
 * slots in bounded claims (a walk over keys that resumes where the last one stopped), process each
 * row concurrently, keep every row's lease with one renewal per third of the lease, adopt the rows
 * a completion hands on, reclaim and sample on their cadence, and drain on shutdown. Subclasses
 * say how to claim and process a row; every fenced write and every loss is theirs to handle.
 */
export abstract class ClaimWorker<Row extends ClaimedRow> {
  protected readonly logger: Logger;
  /**
   * The claiming loops. Two when the slots hold two batches: a claim takes milliseconds, and one
   * at a time would cap a busy replica at a batch per claim's duration while its rows are
   * processed in parallel anyway. SKIP LOCKED keeps their claims apart.
   */
  private readonly lanes: PollLoop[];
  /** Aborted when shutdown stops waiting for the work still running. */
  protected readonly abandon = new AbortController();
  protected readonly leases: LeaseGroup;
  private readonly inFlight = new Set<Promise<void>>();
  /** Slots the claims in flight may fill: they count as taken until those claims return. */
  private reserved = 0;
  private readonly slotWaiters = new Set<() => void>();
  private lastReclaimAt = -Infinity;
  private lastSampleAt = -Infinity;
  private readonly cursor: WalkCursor;
  private emptyClaims = 0;

  constructor(protected readonly settings: ClaimWorkerSettings) {
    this.logger = new Logger(settings.name);
    this.cursor = new WalkCursor(settings.streams);
    const lanes = settings.concurrency >= 2 * settings.batchSize ? 2 : 1;
    this.lanes = Array.from(
      { length: lanes },
      () =>
        new PollLoop({
          name: settings.name,
          intervalMs: settings.pollIntervalMs,
          tick: (signal) => this.tick(signal),
          onError: () => settings.onLoopError?.(),
        }),
    );
    this.leases = new LeaseGroup(settings.leaseMs, (claims) => this.renewMany(claims), (lease, cause) => this.claimLost(lease, cause));
  }

  /** Claims rows as `request` bounds it. */
  protected abstract claim(request: ClaimRequest): Promise<ClaimResult<Row>>;
  /** Processes one claimed row to its end, and releases its lease before its finishing write. Must not throw. */
  protected abstract process(row: Row, lease: Lease): Promise<void>;
  /** Renews the leases of the rows in flight; resolves to the claims found lost. */
  protected abstract renewMany(claims: readonly Claim[]): Promise<Claim[]>;
  /** Logs and counts a lost claim (a renewal or a fenced write found it; its work was told to stop). */
  protected abstract claimLost(lease: Lease, cause: unknown): void;
  /** What this worker works on, for its start-up line (a destination list, a source and its lease, …). */
  protected abstract describe(): string;
  /** Returns expired claims to pending. */
  protected reclaim?(): Promise<void>;
  /** Samples gauges. Failures are logged, never fatal. */
  protected sample?(): Promise<void>;

  get status(): ClaimWorkerStatus {
    const { state, lastError } = this.lanes[0];
    const ticks = this.lanes.map((lane) => lane.lastTickAt?.getTime() ?? -Infinity);
    const latest = Math.max(...ticks);
    return {
      state,
      lastTickAt: Number.isFinite(latest) ? new Date(latest) : undefined,
      lastError,
      consecutiveErrors: Math.max(...this.lanes.map((lane) => lane.consecutiveErrors)),
      inFlight: this.inFlight.size,
    };
  }

  /** True while the worker claims and hands on: false once its shutdown began. */
  protected get claiming(): boolean {
    return this.lanes[0].state === 'running';
  }

  protected startLoop(): void {
    for (const lane of this.lanes) lane.start();
    const { batchSize, concurrency, pollIntervalMs } = this.settings;
    this.logger.log(`started: ${this.describe()}, batch ${batchSize}, concurrency ${concurrency}, poll interval ${pollIntervalMs} ms`);
  }

  /** The claim of `row`, as the fenced writes take it. */
  protected claimOf(row: Row): Claim {
    return { component: this.settings.component, id: String(row.id), token: row.claim_token, leaseMs: this.settings.leaseMs };
  }

  /**
   * Runs `work` for a claimed row, work that ends with the row's fenced finishing write (and
   * releases the lease before it). `done`: it succeeded. `left`: the claim was lost (reported now
   * when the finishing write found it) or shutdown gave up on the row; nothing more may be
   * written. `failed`: the work threw; the caller decides between retry and dead-letter.
   */
  protected async runLeased<T>(lease: Lease, work: () => Promise<T>): Promise<{ outcome: 'done'; value: T } | { outcome: 'left' } | { outcome: 'failed'; error: unknown }> {
    try {
      return { outcome: 'done', value: await work() };
    } catch (error) {
      if (lease.lost || this.abandon.signal.aborted) return { outcome: 'left' };
      if (error instanceof ClaimLostError) {
        if (lease.markLost(error)) this.claimLost(lease, error);
        return { outcome: 'left' };
      }
      return { outcome: 'failed', error };
    }
  }

  /**
   * Takes over rows claimed by a completion's hand-off (or any claim made outside the loop): their
   * leases are kept and they are processed like the rows the loop claims.
   */
  protected adopt(rows: readonly Row[]): void {
    for (const row of rows) this.track(row);
  }

  /** Claim now: new rows may be claimable. */
  wake(): void {
    this.emptyClaims = 0;
    for (const lane of this.lanes) lane.wake();
  }

  /**
   * Stops claiming, waits up to `shutdownTimeoutMs` for the rows in flight, then aborts what is
   * left (`abandon`) and returns; those rows stay `processing` until their lease ends and are
   * reclaimed (docs/concepts/claims-and-leases.md, "Reclaim").
   */
  protected async drain(): Promise<void> {
    if (!this.claiming) return;
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    const waited = new AbortController();
    const drained = Promise.allSettled(this.inFlight).then(() => true);
    const timedOut = abortableDelay(this.settings.shutdownTimeoutMs, waited.signal).then(() => false);
    const inTime = this.inFlight.size === 0 || (await Promise.race([drained, timedOut]));
    waited.abort();
    if (inTime) {
      await this.leases.stop();
      this.logger.log('stopped: nothing left in flight');
      return;
    }
    this.logger.warn(shutdownLeftRows(this.inFlight.size, this.settings.shutdownTimeoutMs));
    const reason = new Error(shutdownReason());
    this.abandon.abort(reason);
    this.leases.cancelAll(reason);
    await this.leases.stop();
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
    const { batchSize, concurrency, leaseMs } = this.settings;
    const taken = this.inFlight.size + this.reserved;
    const free = concurrency - taken;
    // While busy, claim in worthwhile batches: a claim per freed slot would cost a statement per
    // row. Idle workers (nothing in flight) claim at once, so latency does not suffer.
    if (free <= 0 || (taken > 0 && free < Math.ceil(Math.min(batchSize, concurrency) / 2))) {
      await this.nextFreeSlot(signal);
      return 'more';
    }
    const wanted = Math.min(batchSize, free);
    const request = this.cursor.request(wanted, leaseMs);
    this.reserved += wanted;
    let result: ClaimResult<Row>;
    try {
      result = await this.claim(request);
    } finally {
      this.reserved -= wanted;
    }
    const { rows, progress } = result;
    for (const row of rows) this.track(row);
    if (rows.length < wanted) this.notifySlotWaiters();
    const sawEverything = this.cursor.advance(request, progress);
    if (rows.length === wanted) return 'more';
    if (sawEverything) return 'idle';
    if (rows.length > 0) {
      this.emptyClaims = 0;
      return 'more';
    }
    // A claim bounded short of the whole queue found nothing: look a little further, then wait.
    return this.emptyClaims++ < MAX_EMPTY_CLAIMS ? 'more' : 'idle';
  }

  private track(row: Row): void {
    const lease = this.leases.add(this.claimOf(row));
    const task = this.process(row, lease).finally(() => {
      lease.release();
      this.inFlight.delete(task);
      this.notifySlotWaiters();
    });
    this.inFlight.add(task);
  }

  private notifySlotWaiters(): void {
    for (const waiter of [...this.slotWaiters]) waiter();
  }

  private nextFreeSlot(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let dispose = (): void => undefined;
      const done = (): void => {
        this.slotWaiters.delete(done);
        dispose();
        resolve();
      };
      this.slotWaiters.add(done);
      dispose = whenAborted(signal, done);
    });
  }
}
