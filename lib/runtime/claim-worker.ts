import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { ClaimRepository } from '../claims/claim.repository.js';
import { type Lease, LeaseGroup } from '../claims/lease-group.js';
import { WalkCursor } from '../claims/walk-cursor.js';
import type { ClaimRequest } from '../dialects/sql-dialect.interface.js';
import type { ClaimResult } from '../dialects/statement-results.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import type { LostClaim } from '../interfaces/admin.interface.js';
import type { Claim, ClaimComponent } from '../interfaces/claim.interface.js';
import type { QueueBoxEvents } from '../events/queuebox-events.service.js';
import type { LeaseAdvisor } from '../leases/lease-advisor.js';
import type { ResolvedBackoff } from '../options/resolved-options.interface.js';
import { claimContended, maxAttemptsWithoutOutcome, rowClaimLost, rowFinishingWriteFailed, rowWriteLost, shutdownLeftRows, shutdownReason } from '../queuebox.messages.js';
import { abortableDelay, whenAborted } from './abortable.js';
import { backoffDelay } from './backoff.js';
import { errorText } from './error-text.js';
import { PollLoop, type PollLoopState, type TickResult } from './poll-loop.js';

/** How a claim worker paces itself. */
export interface ClaimWorkerSettings {
  /** Loop name in logs, metrics and health. */
  name: string;
  component: ClaimComponent;
  /** What a row is, in log lines: "outbox message", "pulled message", … */
  noun: string;
  /** Claims of a row after which it is dead-lettered; a claim beyond it dead-letters without work. */
  maxAttempts: number;
  backoff: ResolvedBackoff;
  /** A row whose work failed because shutdown stopped it goes back to pending at once, uncounted. */
  releaseOnShutdown?: boolean;
  pollIntervalMs: number;
  batchSize: number;
  concurrency: number;
  /**
   * Rows a worker may hold claimed beyond `concurrency`, waiting for a slot: the next batch is
   * claimed while the current one runs, so a claim's own duration never leaves slots empty.
   * 0 (the default): a worker claims only into free slots.
   */
  claimAhead?: number;
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
  /** Called after every tick that succeeded. */
  onLoopTick?(): void;
  /** Told how much of its lease each row's work used, and of every renewal. */
  leaseAdvisor?: LeaseAdvisor;
  /** Where dead letters and lost claims are emitted. */
  events?: QueueBoxEvents;
}

/** What health checks read of a worker. */
export interface ClaimWorkerStatus {
  state: PollLoopState;
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
  inFlight: number;
  /** Claims this worker lost recently, oldest first (at most `MAX_LOST_CLAIMS`). */
  lostClaims: readonly LostClaim[];
}

/** A claimed row: its id, the token its claim wrote, its claims so far, and its key. */
export interface ClaimedRow {
  id: string;
  token: string;
  attempts: number;
  key: string | null;
}

/** Why a row's work failed, as its worker saw it. */
export interface RowFailure {
  error: unknown;
  /** False: dead-letter now (a permanent failure); true: retry while attempts remain. */
  retryable: boolean;
  /** The destination asked for at least this delay (Retry-After). */
  retryAfterMs?: number;
}

/** How a row ended, for a worker's metrics. */
export type RowOutcome = 'retried' | 'dead' | 'lost';

/**
 * Empty claims in a row after which a worker sleeps until woken, when a claim could not see the
 * whole queue (a walk cut short by its bound): the cursor moves on each time, so the next wake-up
 * or poll continues the sweep instead of sweeping everything at once.
 */
const MAX_EMPTY_CLAIMS = 2;

/** Lost claims a worker remembers for the admin's "claims at risk": enough to see a pattern, bounded. */
const MAX_LOST_CLAIMS = 20;

/**
 * The loop shared by the outbox poller, the inbox relay and pull workers: claim up to the free
 * slots in bounded claims (a walk over keys that resumes where the last one stopped), process each
 * row concurrently, keep every row's lease with one renewal per third of the lease, adopt the rows
 * a completion hands on, reclaim and sample on their cadence, and drain on shutdown. It owns the
 * one outcome path of a row that did not succeed: the max-attempts guard, retry with backoff or
 * dead-letter, and the report of a lost claim. Subclasses say how to claim a row and how its work
 * succeeds.
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
  /** Rows whose work runs now (at most `concurrency`); the rest of `inFlight` waits in `waiting`. */
  private running = 0;
  /** Claimed rows waiting for a slot, first claimed first (`claimAhead`). */
  private readonly waiting: (() => void)[] = [];
  private readonly slotWaiters = new Set<() => void>();
  private lastReclaimAt = -Infinity;
  private lastSampleAt = -Infinity;
  private readonly cursor: WalkCursor;
  private emptyClaims = 0;
  /** The last claim found nothing: the next may probe first, where the dialect polls. */
  private idle = false;
  /** Shutdown began: nothing new is claimed or handed on. */
  protected stopping = false;
  private readonly lostClaims: LostClaim[] = [];

  constructor(
    protected readonly settings: ClaimWorkerSettings,
    protected readonly repository: ClaimRepository,
  ) {
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
          onTick: settings.onLoopTick,
        }),
    );
    this.leases = new LeaseGroup(
      settings.leaseMs,
      (claims) => repository.renewMany(claims),
      (lease, cause) => this.reportLost(lease.detail as Row, 'work', cause),
      settings.leaseAdvisor && ((lease) => settings.leaseAdvisor!.renewed(settings.component, this.streamOf(lease.detail as Row))),
    );
  }

  /** Claims rows as `request` bounds it. */
  protected abstract claim(request: ClaimRequest): Promise<ClaimResult<Row>>;
  /**
   * Processes one claimed row to its end, and releases its lease before its finishing write: the
   * success path is the worker's, a failure goes to `fail`. A thrown error is a failed finishing
   * write (the row is reclaimed after its lease).
   */
  protected abstract process(row: Row, lease: Lease): Promise<void>;
  /** Counts how a row ended (`seconds`: how long its work ran, when it ran). */
  protected abstract countOutcome(row: Row, outcome: RowOutcome, seconds?: number): void;
  /** The fields that identify a row in log lines (ids, destination or source). */
  protected abstract logFields(row: Row): Record<string, unknown>;
  /** What this worker works on, for its start-up line (a destination list, a source and its lease, …). */
  protected abstract describe(): string;
  /** Returns expired claims to pending. */
  protected reclaim?(): Promise<void>;
  /** The destination or source of a row: the stream of the lease advisor and of events. */
  protected abstract streamOf(row: Row): string;
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
      lostClaims: [...this.lostClaims],
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
    return { component: this.settings.component, id: row.id, token: row.token, leaseMs: this.settings.leaseMs };
  }

  /** The lease of a row handed on by a completion, or undefined while shutting down (nothing new is taken). */
  protected get handOffLeaseMs(): number | undefined {
    return this.claiming && !this.stopping ? this.settings.leaseMs : undefined;
  }

  /**
   * The outcome path of a row whose work failed (its lease already released): retried after
   * backoff (at least `retryAfterMs`), or dead when it is not retryable or out of attempts; back to
   * pending at once when shutdown stopped the work of a worker that releases rows on shutdown. The
   * write is fenced; a lost claim is reported and nothing more is written. Returns how the row
   * ended (`released`: given back by shutdown).
   */
  protected async fail(row: Row, lease: Lease, failure: RowFailure, seconds?: number): Promise<RowOutcome | 'released'> {
    const { maxAttempts, backoff, releaseOnShutdown } = this.settings;
    const releasing = releaseOnShutdown === true && this.stopping && failure.retryable;
    const dead = !releasing && (!failure.retryable || row.attempts >= maxAttempts);
    const error = errorText(failure.error);
    const delay = releasing ? 0 : Math.min(backoff.maxDelayMs, Math.max(backoffDelay(row.attempts, backoff), failure.retryAfterMs ?? 0));
    const claim = lease.claim;
    const written = dead ? await this.repository.deadLetter(claim, error) : await this.repository.retry(claim, delay, error);
    if (written === 'lost') {
      lease.markLost(undefined);
      this.reportLost(row, dead ? 'dead-letter' : 'retry', undefined, seconds);
      return 'lost';
    }
    if (releasing) return 'released';
    this.countOutcome(row, dead ? 'dead' : 'retried', seconds);
    // A dead row is finished: the next row of its key may be claimable now.
    if (dead && row.key !== null) this.wake();
    const fields = { ...this.logFields(row), attempt: row.attempts, error };
    if (dead) this.logger.error(`${this.settings.noun} dead-lettered`, fields);
    else this.logger.warn(`${this.settings.noun} failed; retrying`, fields);
    if (dead) this.settings.events?.emit('message.dead-lettered', { component: this.settings.component, id: row.id, stream: this.streamOf(row), attempt: row.attempts, error });
    return dead ? 'dead' : 'retried';
  }

  /**
   * Reports a lost claim once: found by a renewal while the work ran (`work`: the work was told to
   * stop), or by a finishing write (the write changed nothing).
   */
  protected reportLost(row: Row, during: 'work' | 'retry' | 'dead-letter' | 'finish', cause?: unknown, seconds?: number): void {
    const message = during === 'work' ? rowClaimLost(this.settings.noun, row.id) : rowWriteLost(this.settings.noun, during, row.id);
    this.logger.warn(message, { ...this.logFields(row), ...(cause === undefined ? {} : { error: errorText(cause) }) });
    this.countLost(row, during, seconds);
  }

  /** Counts a lost claim, and remembers it for the admin's claims at risk. */
  protected countLost(row: Row, during: LostClaim['during'], seconds?: number): void {
    this.countOutcome(row, 'lost', seconds);
    this.lostClaims.push({ id: row.id, during, at: new Date() });
    if (this.lostClaims.length > MAX_LOST_CLAIMS) this.lostClaims.shift();
    this.settings.events?.emit('claim.lost', { component: this.settings.component, id: row.id, stream: this.streamOf(row), during });
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
        if (lease.markLost(error)) this.reportLost(lease.detail as Row, 'finish', error);
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
    this.idle = false;
    for (const lane of this.lanes) lane.wake();
  }

  /**
   * Stops claiming, waits up to `shutdownTimeoutMs` for the rows in flight, then aborts what is
   * left (`abandon`) and returns; those rows stay `processing` until their lease ends and are
   * reclaimed (docs/concepts/claims-and-leases.md, "Reclaim").
   */
  protected async drain(): Promise<void> {
    if (!this.claiming) return;
    this.stopping = true;
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    if (this.settings.releaseOnShutdown) this.startWaiting();
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
      await this.sample().catch((error) => this.logger.warn('gauge sample failed', { error: errorText(error) }));
    }
    const { batchSize, concurrency, leaseMs } = this.settings;
    const ahead = this.settings.claimAhead ?? 0;
    const taken = this.inFlight.size + this.reserved;
    const free = concurrency + ahead - taken;
    // While busy, claim in worthwhile batches: a claim per freed slot would cost a statement per
    // row. Room for a whole batch ahead makes every busy claim a whole batch. Idle workers
    // (nothing in flight) claim at once, so latency does not suffer.
    const batch = Math.min(batchSize, concurrency);
    const worthwhile = ahead >= batch ? batch : Math.ceil(batch / 2);
    if (free <= 0 || (taken > 0 && free < worthwhile)) {
      await this.nextFreeSlot(signal);
      return 'more';
    }
    const wanted = Math.min(batchSize, free);
    const request = { ...this.cursor.request(wanted, leaseMs), afterIdle: this.idle };
    this.reserved += wanted;
    let result: ClaimResult<Row>;
    try {
      result = await this.claim(request);
    } finally {
      this.reserved -= wanted;
    }
    const { rows, progress, skipped } = result;
    for (const row of rows) this.track(row);
    if (rows.length < wanted) this.notifySlotWaiters();
    this.idle = rows.length === 0;
    if (skipped === 'contended') this.logger.warn(claimContended(this.settings.name));
    // A claim that did not run saw nothing: its walk stays where it was.
    if (skipped) return 'idle';
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
    lease.detail = row;
    let started = performance.now();
    const slot = this.takeSlot();
    const work = slot
      ? slot.then(() => {
          started = performance.now();
          return this.run(row, lease, true);
        })
      : this.run(row, lease, false);
    const task = work.finally(() => {
      lease.release();
      this.settings.leaseAdvisor?.finished(this.settings.component, this.streamOf(row), this.settings.leaseMs, performance.now() - started, lease.lost);
      this.inFlight.delete(task);
      this.giveSlot();
      this.notifySlotWaiters();
    });
    this.inFlight.add(task);
  }

  /** Takes a slot now (undefined), or returns the promise of the slot this row waits for. */
  private takeSlot(): Promise<void> | undefined {
    if (this.running < this.settings.concurrency) {
      this.running++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A row's work ended: its slot goes to the row that waited longest. */
  private giveSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** Shutdown: every waiting row starts now, to give its claim back (or, where rows are not released, to run). */
  private startWaiting(): void {
    for (const start of this.waiting.splice(0)) {
      this.running++;
      start();
    }
  }

  /**
   * A row's work, after the max-attempts guard; never throws. A row that waited for its slot
   * (`waited`) and finds shutdown begun is given back unworked where the worker releases rows on
   * shutdown.
   */
  private async run(row: Row, lease: Lease, waited: boolean): Promise<void> {
    try {
      // Lost while it waited: the renewal reported it; nothing may be written.
      if (waited && lease.lost) return;
      if (waited && this.stopping && this.settings.releaseOnShutdown) {
        lease.release();
        await this.fail(row, lease, { error: new Error(shutdownReason()), retryable: true });
        return;
      }
      if (row.attempts > this.settings.maxAttempts) {
        // Claimed more often than allowed without an outcome (its workers crashed or lost it).
        lease.release();
        await this.fail(row, lease, { error: new Error(maxAttemptsWithoutOutcome()), retryable: false });
        return;
      }
      await this.process(row, lease);
    } catch (error) {
      // A database failure of the finishing write: the row stays processing and is reclaimed.
      this.logger.error(rowFinishingWriteFailed(this.settings.noun), { ...this.logFields(row), error: errorText(error) });
    }
  }

  private notifySlotWaiters(): void {
    // Each waiter removes itself; a Set visits the rest regardless.
    for (const waiter of this.slotWaiters) waiter();
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
