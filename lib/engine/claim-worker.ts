import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from 'typeorm';
import type { ClaimRepository } from './claim.repository.js';
import { type Lease, LeaseGroup } from './lease-group.js';
import { WalkCursor } from './walk-cursor.js';
import type { ClaimResult } from '../database/statement-results.js';
import { ClaimLostError } from '../shared/errors/claim-lost.error.js';
import type { QueueBoxEvents } from '../shared/events/queuebox-events.service.js';
import type { LostClaim } from '../shared/interfaces/admin.interface.js';
import type { Claim } from '../shared/interfaces/claim.interface.js';
import type { LeaseAdvisor } from './leases/lease-advisor.js';
import type { ResolvedLoopOptions } from '../config/options/resolved-options.interface.js';
import type { ClaimerDescriptor } from '../shared/queuebox.claimers.js';
import {
  claimContended,
  claimLost,
  maxAttemptsWithoutOutcome,
  rowFinishedTwice,
  rowFinishingWriteFailed,
  rowNotFinished,
  shutdownLeftRows,
  shutdownReason,
} from '../shared/queuebox.messages.js';
import type { SpanOutcome } from '../shared/tracing/messaging-attributes.js';
import type { MessageSpan } from '../shared/tracing/message-span.interface.js';
import { abortableDelay, whenAborted } from './abortable.js';
import { backoffDelay } from './backoff.js';
import { type ClaimPace, FixedPace } from './claim-pace.js';
import { ClaimOutcomes } from './claim-outcomes.js';
import { type OutcomeMetrics } from './metrics/outcome-metrics.interface.js';
import type { ClaimedRow, ClaimRole, RowFailure, RowJob } from './claim-role.interface.js';
import { CompletionBatcher } from './completion-batcher.js';
import { errorText } from '../shared/errors/error-text.js';
import { PollLoop, type PollLoopState, type TickResult } from './poll-loop.js';

/** How a claim worker runs: its claimer, its resolved loop options, and what its loop reports to. */
export interface ClaimWorkerSettings extends ResolvedLoopOptions {
  name: string;
  /** Who claims: component, table, row noun, shutdown behaviour. */
  claimer: ClaimerDescriptor;
  /** What sets `batchSize` and `concurrency` as the worker runs. Default: the two values, fixed. */
  pace?: ClaimPace;
  onPace?(concurrency: number, batchSize: number): void;
  /** Finishing writes in autocommit skip the WAL flush (`asyncMarks`); never those in a caller's transaction. */
  asyncMarks?: boolean;
  /** The streams whose keys the claims walk in turn; undefined for the outbox (every destination and key). */
  streams?: readonly string[];
  /** Run the role's `reclaim()` at most this often (a fifth of the lease); never when undefined. */
  reclaimEveryMs?: number;
  sampleEveryMs?: number;
  onLoopError?(): void;
  onLoopTick?(): void;
}

export interface ClaimWorkerReporting {
  metrics?: OutcomeMetrics;
  events?: QueueBoxEvents;
  leaseAdvisor?: LeaseAdvisor;
}

export interface ClaimWorkerStatus {
  state: PollLoopState;
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
  inFlight: number;
  concurrency: number;
  batchSize: number;
  lostClaims: readonly LostClaim[];
}

/**
 * Empty claims in a row after which a worker sleeps until woken, when a bounded walk could not see
 * the whole queue: the cursor moves on, so the next wake-up continues the sweep.
 */
const MAX_EMPTY_CLAIMS = 2;

/**
 * The loop shared by the outbox poller, the inbox relay and pull workers: claim up to the free slots
 * in bounded claims, run each row's work concurrently, renew leases, drain on shutdown. It owns every
 * row's outcome path (max-attempts guard, fenced finishing write with hand-off, retry or
 * dead-letter, lost claims) and its metrics, events, logs and spans.
 */
export class ClaimWorker<Row extends ClaimedRow> {
  private readonly logger: Logger;
  private readonly outcomes: ClaimOutcomes;
  private readonly pace: ClaimPace;
  /** Two lanes when the slots hold two batches, so one claim's latency does not cap throughput. */
  private readonly lanes: PollLoop[];
  private readonly abandon = new AbortController();
  private readonly leases: LeaseGroup;
  private readonly completions: CompletionBatcher<Row>;
  /** Rows tracked and not yet ended (running or waiting for a slot). */
  private inFlight = 0;
  /** Called when `inFlight` falls to zero (shutdown waits for it). */
  private onDrained?: () => void;
  /** Slots the claims in flight may fill: they count as taken until those claims return. */
  private reserved = 0;
  /** Rows whose work runs now (at most `concurrency`); the rest of `inFlight` waits in `waiting`. */
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly slotWaiters = new Set<() => void>();
  private lastReclaimAt = -Infinity;
  private lastSampleAt = -Infinity;
  private readonly cursor: WalkCursor;
  private emptyClaims = 0;
  private idle = false;
  private stopping = false;

  constructor(
    private readonly settings: ClaimWorkerSettings,
    private readonly repository: ClaimRepository,
    private readonly role: ClaimRole<Row>,
    reporting: ClaimWorkerReporting = {},
  ) {
    this.logger = new Logger(settings.name);
    this.outcomes = new ClaimOutcomes(
      settings.claimer,
      this.logger,
      reporting.metrics,
      reporting.events,
      reporting.leaseAdvisor,
    );
    this.cursor = new WalkCursor(settings.streams);
    this.pace = settings.pace ?? new FixedPace(settings.concurrency, settings.batchSize);
    // An adaptive pace keeps its batch at half its concurrency: always two lanes.
    const lanes = this.pace.adaptive || settings.concurrency >= 2 * settings.batchSize ? 2 : 1;
    this.lanes = Array.from(
      { length: lanes },
      (_, lane) =>
        new PollLoop({
          name: settings.name,
          intervalMs: settings.pollIntervalMs,
          tick: (signal) => this.tick(signal),
          onError: () => settings.onLoopError?.(),
          logsFailure: () => this.leadsFailures(lane),
          onTick: settings.onLoopTick,
          outages: repository.outages,
        }),
    );
    this.leases = new LeaseGroup(
      settings.leaseMs,
      (claims) => repository.renewMany(claims),
      (lease, cause) => this.outcomes.lost(this.role.identify(lease.detail as Row), 'work', cause),
      (lease) => this.outcomes.renewed(this.role.identify(lease.detail as Row).stream),
    );
    // A key with a backlog flows from one completion to the next: the mark of a row claims the
    // key's next row in the same statement (not while shutting down: nothing new is taken then).
    this.completions = new CompletionBatcher<Row>(
      repository,
      () => this.handOffLeaseMs,
      (rows) => this.takeOver(rows),
      settings.asyncMarks,
    );
  }

  get status(): ClaimWorkerStatus {
    const { state, lastError } = this.lanes[0];
    const ticks = this.lanes.map((lane) => lane.lastTickAt?.getTime() ?? -Infinity);
    const latest = Math.max(...ticks);
    return {
      state,
      lastTickAt: Number.isFinite(latest) ? new Date(latest) : undefined,
      lastError,
      consecutiveErrors: Math.max(...this.lanes.map((lane) => lane.consecutiveErrors)),
      inFlight: this.inFlight,
      concurrency: this.pace.concurrency,
      batchSize: this.pace.batchSize,
      lostClaims: this.outcomes.recentLosses,
    };
  }

  start(): void {
    for (const lane of this.lanes) lane.start();
    const { batchSize, concurrency, adaptive } = this.pace;
    const pace = adaptive
      ? `adaptive pace from batch ${batchSize}, concurrency ${concurrency}`
      : `batch ${batchSize}, concurrency ${concurrency}`;
    this.logger.log(`started: ${this.role.describe()}, ${pace}, poll interval ${this.settings.pollIntervalMs} ms`);
    this.settings.onPace?.(concurrency, batchSize);
  }

  /**
   * Claim now. Where a lane sleeps, that lane alone claims (two claims for the same few new rows
   * would leave one empty); else every lane claims again when its tick or back-off ends.
   */
  wake(): void {
    this.emptyClaims = 0;
    this.idle = false;
    const sleeping = this.lanes.find((lane) => lane.sleeping);
    if (sleeping) sleeping.wake();
    else for (const lane of this.lanes) lane.wake();
  }

  /**
   * Stops claiming, waits up to `shutdownTimeoutMs` for the rows in flight, then aborts the rest;
   * those stay `processing` until reclaimed. With `shutdown: 'release'`, the work is told to stop
   * first and waiting rows are given back at once.
   */
  async stop(): Promise<void> {
    if (!this.claiming) return;
    this.stopping = true;
    const releasing = this.settings.claimer.shutdown === 'release';
    // The work sees shutdown on its signal; its lease is renewed until it ends.
    if (releasing) this.leases.cancelAll(new Error(shutdownReason()));
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    if (releasing) this.startWaiting();
    const waited = new AbortController();
    const drained = new Promise<boolean>((resolve) => (this.onDrained = () => resolve(true)));
    const timedOut = abortableDelay(this.settings.shutdownTimeoutMs, waited.signal).then(() => false);
    const inTime = this.inFlight === 0 || (await Promise.race([drained, timedOut]));
    waited.abort();
    this.onDrained = undefined;
    if (inTime) {
      await this.leases.stop();
      this.logger.log('stopped: nothing left in flight');
      return;
    }
    this.logger.warn(shutdownLeftRows(this.inFlight, this.settings.shutdownTimeoutMs));
    const reason = new Error(shutdownReason());
    this.abandon.abort(reason);
    this.leases.cancelAll(reason);
    await this.leases.stop();
  }

  private get claiming(): boolean {
    return this.lanes[0].state === 'running';
  }

  /** The lease of a row handed on by a completion, or undefined while shutting down (nothing new is taken). */
  private get handOffLeaseMs(): number | undefined {
    return this.claiming && !this.stopping ? this.settings.leaseMs : undefined;
  }

  private async tick(signal: AbortSignal): Promise<TickResult> {
    const now = performance.now();
    if (
      this.role.reclaim &&
      this.settings.reclaimEveryMs !== undefined &&
      now - this.lastReclaimAt >= this.settings.reclaimEveryMs
    ) {
      this.lastReclaimAt = now;
      await this.role.reclaim();
    }
    let sampleFailure: { error: unknown } | undefined;
    if (
      this.role.sample &&
      this.settings.sampleEveryMs !== undefined &&
      now - this.lastSampleAt >= this.settings.sampleEveryMs
    ) {
      this.lastSampleAt = now;
      await this.role.sample().catch((error: unknown) => (sampleFailure = { error }));
    }
    const result = await this.claimStep(now, signal);
    // Logged once the claim went through: when it fails too (the database down), the failed poll
    // is the one line logged for both.
    if (sampleFailure) this.logger.warn('gauge sample failed', { error: errorText(sampleFailure.error) });
    return result;
  }

  private async claimStep(now: number, signal: AbortSignal): Promise<TickResult> {
    if (this.pace.observe(now)) this.paceChanged();
    const { batchSize, concurrency } = this.pace;
    const { leaseMs } = this.settings;
    const ahead = this.settings.claimAhead;
    const taken = this.inFlight + this.reserved;
    const free = concurrency + ahead - taken;
    // While busy, claim whole batches (a claim per freed slot costs a statement per row); idle
    // workers claim at once, so latency does not suffer.
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
      result = await this.role.claim(request);
    } finally {
      this.reserved -= wanted;
    }
    const { rows, progress, skipped } = result;
    this.takeOver(rows);
    this.pace.claimed(wanted, rows.length, this.inFlight + this.reserved);
    if (rows.length < wanted) this.notifySlotWaiters();
    this.idle = rows.length === 0;
    if (skipped === 'contended') this.logger.warn(claimContended(this.settings.name));
    if (skipped) return 'idle';
    const sawEverything = this.cursor.advance(request, progress);
    if (rows.length === wanted) {
      this.wakeSleepingLanes();
      return 'more';
    }
    if (sawEverything) return 'idle';
    if (rows.length > 0) {
      this.emptyClaims = 0;
      return 'more';
    }
    // A claim bounded short of the whole queue found nothing: look a little further, then wait.
    return this.emptyClaims++ < MAX_EMPTY_CLAIMS ? 'more' : 'idle';
  }

  /**
   * The lanes fail together (database down), so a failure is logged once, by the lane whose count of
   * consecutive failures passes every other lane's.
   */
  private leadsFailures(lane: number): boolean {
    const failures = this.lanes[lane].consecutiveErrors;
    return this.lanes.every((other, index) => index === lane || other.consecutiveErrors < failures);
  }

  private wakeSleepingLanes(): void {
    for (const lane of this.lanes) if (lane.sleeping) lane.wake();
  }

  private paceChanged(): void {
    const { concurrency, batchSize } = this.pace;
    this.settings.onPace?.(concurrency, batchSize);
    while (this.waiting.length > 0 && this.running < concurrency) {
      this.running++;
      this.waiting.shift()!();
    }
    this.notifySlotWaiters();
  }

  private takeOver(rows: readonly Row[]): void {
    if (rows.length === 0) return;
    // Asked with a module function first: a key's hand-off takes one row a message, rarely inverted.
    if (rows.some(isInverted))
      this.outcomes.inverted(rows.filter(isInverted).map((row) => ({ ...this.role.identify(row), key: row.key })));
    for (const row of rows) this.track(row);
  }

  private track(row: Row): void {
    const lease = this.leases.add(this.claimOf(row));
    lease.detail = row;
    this.inFlight++;
    void this.run(row, lease, this.takeSlot());
  }

  private claimOf(row: Row): Claim {
    return { component: this.settings.claimer.component, id: row.id, token: row.token, leaseMs: this.settings.leaseMs };
  }

  /**
   * A row's whole life in the worker, in one async frame (no closure or promise besides it: this is
   * the engine's cost per row): its slot, the max-attempts guard, its work and the write of how it
   * ended (inside its span, when one records), then its lease reading and its slot given back.
   * Rare paths live in their own methods, so that the frame stays small. Never throws.
   */
  private async run(row: Row, lease: Lease, slot: Promise<void> | undefined): Promise<void> {
    let started = performance.now();
    let span: MessageSpan | undefined;
    // Asked once: the row's stream labels its outcome and its lease reading.
    const stream = this.role.stream(row);
    try {
      if (slot) {
        await slot;
        started = performance.now();
      }
      if (this.refused(row, lease, slot !== undefined)) await this.refuse(row, lease, slot !== undefined);
      else {
        span = this.role.openSpan?.(row);
        const job = new RowFinish<Row>(lease, span, this.finishRow);
        let failed: SpanOutcome | undefined;
        try {
          if (span) await span.run(() => this.workInSpan(row, job));
          else if (!this.role.finishAfterWork) await this.role.work(row, job);
          else {
            // `workInSpan` without its frame: the work, then the batched finishing write (`finishBatched`).
            await this.role.work(row, job);
            this.startFinish(job);
            let lost: ReadonlySet<Claim>;
            try {
              lost = await this.completions.complete(lease.claim);
            } catch (error) {
              job.finishFailed = true;
              throw error;
            }
            if (lost.has(lease.claim)) this.lostAtFinish(job);
          }
          if (!job.finished) throw new Error(rowNotFinished(this.settings.claimer.noun));
        } catch (error) {
          // A failed autocommit finishing write throws on from here (left to the reclaim).
          failed = await this.workFailed(row, job, error);
        }
        const outcome = failed ?? this.succeeded(row, job, stream);
        span?.end(outcome);
      }
    } catch (error) {
      // As `endSpanWith`: the span records the error and ends failed.
      if (span) {
        span.recordError(error);
        span.end('failed');
      }
      // A database failure of an autocommit finishing write: the row stays processing and is reclaimed.
      this.logger.error(rowFinishingWriteFailed(this.settings.claimer.noun), {
        ...this.role.identify(row).fields,
        error: errorText(error),
      });
    } finally {
      lease.release();
      this.outcomes.leaseUsed(stream, this.settings.leaseMs, performance.now() - started, lease.lost);
      if (--this.inFlight === 0) this.onDrained?.();
      this.giveSlot();
      this.notifySlotWaiters();
    }
  }

  /** The row's work in its span's context, and the finishing write after it when the worker writes it. */
  private async workInSpan(row: Row, job: RowFinish<Row>): Promise<void> {
    await this.role.work(row, job);
    if (this.role.finishAfterWork) await job.finish();
  }

  /** Whether the row is not to be worked: lost while it waited, given back by shutdown, or out of attempts. */
  private refused(row: Row, lease: Lease, waited: boolean): boolean {
    return (waited && (lease.lost || this.releasing)) || row.attempts > this.settings.maxAttempts;
  }

  /** What `refused` found, written (nothing, for a claim lost while it waited: the renewal reported it). */
  private async refuse(row: Row, lease: Lease, waited: boolean): Promise<void> {
    if (waited && lease.lost) return;
    lease.release();
    if (waited && this.releasing) {
      await this.fail(row, lease, { error: new Error(shutdownReason()), retryable: true });
      return;
    }
    // Claimed more often than allowed without an outcome (its workers crashed or lost it).
    await this.fail(row, lease, { error: new Error(maxAttemptsWithoutOutcome()), retryable: false });
  }

  /** Shutting down, with the claimer's rows given back rather than waited for. */
  private get releasing(): boolean {
    return this.stopping && this.settings.claimer.shutdown === 'release';
  }

  /** The row's work succeeded and its finishing write went through. */
  private succeeded(row: Row, job: RowFinish<Row>, stream: string): SpanOutcome {
    const { seconds } = job;
    this.pace.record('ok', seconds === undefined ? undefined : seconds * 1000);
    this.outcomes.ended(stream, 'done', seconds);
    this.role.succeeded?.(row);
    this.takeOver(job.handedOn);
    return this.settings.claimer.table.done;
  }

  /** A row's work threw (or its finishing write did): how that is reported and written. */
  private workFailed(row: Row, job: RowFinish<Row>, error: unknown): Promise<SpanOutcome> | SpanOutcome {
    const { lease, span } = job;
    const seconds = (job.seconds ??= (performance.now() - job.started) / 1000);
    // A lost claim or a failed finishing write counts against the pace like a failed work (not shutdown's give-up).
    if (job.lostAtFinish || (!this.abandon.signal.aborted && (lease.lost || job.finishFailed)))
      this.pace.record('failed', seconds * 1000);
    if (job.lostAtFinish) {
      this.outcomes.lost(this.role.identify(row), 'finish', undefined, seconds);
      return 'lost';
    }
    if (lease.lost) return 'lost';
    if (this.abandon.signal.aborted) return 'abandoned';
    if (job.finishFailed) throw error;
    span?.recordError(error);
    lease.release();
    return this.fail(row, lease, this.role.failureOf?.(error) ?? { error, retryable: true }, seconds);
  }

  /**
   * A row's fenced finishing write (`RowJob.finish`), once per worker rather than a closure per row:
   * in the manager's transaction, else batched in autocommit. Throws when the claim is lost or
   * shutdown gave up on the row.
   */
  private readonly finishRow = (job: RowFinish<Row>, manager?: EntityManager): Promise<void> => {
    try {
      this.startFinish(job);
    } catch (error) {
      return Promise.reject(error);
    }
    return manager ? this.finishInTransaction(job, manager) : this.finishBatched(job);
  };

  /** Ends the row's work and its lease; throws when nothing may be written. */
  private startFinish(job: RowFinish<Row>): void {
    const { lease } = job;
    if (job.finished) throw new Error(rowFinishedTwice(this.settings.claimer.noun));
    job.finished = true;
    job.seconds = (performance.now() - job.started) / 1000;
    lease.release();
    // Found lost by a renewal (reported then), or given up by shutdown: nothing more is written.
    if (lease.lost) throw lease.signal.reason;
    if (this.abandon.signal.aborted) throw this.abandon.signal.reason;
  }

  /** The finishing write batched with other rows' in autocommit; a failed statement throws with `finishFailed`. */
  private async finishBatched(job: RowFinish<Row>): Promise<void> {
    const { claim } = job.lease;
    let lost: ReadonlySet<Claim>;
    try {
      lost = await this.completions.complete(claim);
    } catch (error) {
      job.finishFailed = true;
      throw error;
    }
    if (lost.has(claim)) this.lostAtFinish(job);
  }

  /** The finishing write in the caller's transaction (its failure is the transaction's). */
  private async finishInTransaction(job: RowFinish<Row>, manager: EntityManager): Promise<void> {
    const result = await this.repository.completeMany<Row>([job.lease.claim], this.handOffLeaseMs, { manager });
    job.handedOn = result.claimed;
    if (result.lost.length > 0) this.lostAtFinish(job);
  }

  /** The finishing write found the claim lost: the lease is marked lost and the work sees `ClaimLostError`. */
  private lostAtFinish(job: RowFinish<Row>): never {
    const { lease } = job;
    job.lostAtFinish = true;
    const error = new ClaimLostError(
      lease.claim.component,
      lease.claim.id,
      claimLost(lease.claim.component, lease.claim.id),
    );
    lease.markLost(error);
    throw error;
  }

  /**
   * A failed work (lease already released): retried after backoff, dead when not retryable or out of
   * attempts, pending at once when shutdown released it; never dead when given back. Fenced write.
   */
  private async fail(row: Row, lease: Lease, failure: RowFailure, seconds?: number): Promise<SpanOutcome> {
    const { maxAttempts, backoff } = this.settings;
    const releasing = this.settings.claimer.shutdown === 'release' && this.stopping && failure.retryable;
    const dead = !releasing && !failure.giveBack && (!failure.retryable || row.attempts >= maxAttempts);
    const error = errorText(failure.error);
    const delay = releasing
      ? 0
      : Math.min(backoff.maxDelayMs, Math.max(backoffDelay(row.attempts, backoff), failure.retryAfterMs ?? 0));
    const claim = lease.claim;
    // A row given back by shutdown, or because this worker cannot work on it, says nothing about the destination.
    if (!releasing && !failure.giveBack) this.pace.record('failed', seconds === undefined ? undefined : seconds * 1000);
    const written = dead
      ? await this.repository.deadLetter(claim, error)
      : await this.repository.retry(claim, delay, error);
    const identity = this.role.identify(row);
    if (written === 'lost') {
      lease.markLost(undefined);
      this.outcomes.lost(identity, dead ? 'dead-letter' : 'retry', undefined, seconds);
      return 'lost';
    }
    if (releasing) return 'released';
    this.outcomes.ended(identity.stream, dead ? 'dead' : 'retried', seconds);
    const fields = { ...identity.fields, attempt: row.attempts, error };
    if (!dead) {
      this.logger.warn(`${this.settings.claimer.noun} failed; retrying`, fields);
      return 'retried';
    }
    this.logger.error(`${this.settings.claimer.noun} dead-lettered`, fields);
    this.outcomes.deadLettered(identity, row.attempts, error);
    // A dead row is finished: the next row of its key may be claimable now.
    if (row.key !== null) this.wake();
    return 'dead';
  }

  private takeSlot(): Promise<void> | undefined {
    if (this.running < this.pace.concurrency) {
      this.running++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private giveSlot(): void {
    if (this.waiting.length === 0 || this.running > this.pace.concurrency) this.running--;
    else this.waiting.shift()!();
  }

  private startWaiting(): void {
    for (const start of this.waiting.splice(0)) {
      this.running++;
      start();
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

const NO_ROWS: readonly never[] = [];

const isInverted = (row: ClaimedRow): boolean => row.inverted === true;

/**
 * The job of one row (`RowJob`) and what its finishing write found, in one object: a row's work
 * then allocates no closures. `finish` runs the worker's `finishRow`.
 */
class RowFinish<Row> implements RowJob {
  /** When the work started (its duration is measured from here). */
  readonly started = performance.now();
  finished = false;
  lostAtFinish = false;
  finishFailed = false;
  /** How long the work ran, set when it finished (or failed). */
  seconds: number | undefined;
  /** The rows the finishing write handed on (a key's next row, in the manager's transaction). */
  handedOn: readonly Row[] = NO_ROWS;

  constructor(
    readonly lease: Lease,
    readonly span: MessageSpan | undefined,
    private readonly finisher: (job: RowFinish<Row>, manager?: EntityManager) => Promise<void>,
  ) {}

  get signal(): AbortSignal {
    return this.lease.signal;
  }

  finish(manager?: EntityManager): Promise<void> {
    return this.finisher(this, manager);
  }
}
