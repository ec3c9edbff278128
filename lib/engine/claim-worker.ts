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
import { endSpanWith } from '../shared/tracing/messaging-tracer.js';
import { abortableDelay, whenAborted } from './abortable.js';
import { backoffDelay } from './backoff.js';
import { type ClaimPace, FixedPace } from './claim-pace.js';
import { ClaimOutcomes } from './claim-outcomes.js';
import { type OutcomeMetrics } from './metrics/outcome-metrics.interface.js';
import type { ClaimedRow, ClaimRole, RowFailure, RowJob } from './claim-role.interface.js';
import { CompletionBatcher } from './completion-batcher.js';
import { errorText } from '../shared/errors/error-text.js';
import { PollLoop, type PollLoopState, type TickResult } from './poll-loop.js';

/**
 * How a claim worker runs: its claimer, its loop's options as resolved (the same shape for every
 * claimer), and what its loop reports to. `claimWorkerSettings` (loop-settings.ts) builds them.
 */
export interface ClaimWorkerSettings extends ResolvedLoopOptions {
  /** Its logger's name. */
  name: string;
  /**
   * Who claims: the component of its claims and metrics, its table, what its rows are called in
   * log lines, and what its shutdown does with work in flight.
   */
  claimer: ClaimerDescriptor;
  /**
   * What sets `batchSize` and `concurrency` as the worker runs (an adaptive pace, fed by the
   * worker's claims and outcomes and consulted on its ticks). Default: the two values, fixed.
   */
  pace?: ClaimPace;
  /** Called at start and whenever the pace changes its values (the gauges). */
  onPace?(concurrency: number, batchSize: number): void;
  /**
   * The autocommit finishing writes commit without waiting for their WAL flush (the outbox's
   * `asyncMarks`; PostgreSQL). Never those in a caller's transaction.
   */
  asyncMarks?: boolean;
  /**
   * The streams whose keys the claims walk in turn (the relay's sources, a pull worker's source);
   * undefined for the outbox, whose walk covers every (destination, key).
   */
  streams?: readonly string[];
  /** Run the role's `reclaim()` at most this often (a fifth of the lease); never when undefined. */
  reclaimEveryMs?: number;
  /** Run the role's `sample()` (backlog gauges) at most this often. */
  sampleEveryMs?: number;
  onLoopError?(): void;
  /** Called after every tick that succeeded. */
  onLoopTick?(): void;
}

/** Where a worker reports how its rows end (all optional: a test's worker reports nowhere). */
export interface ClaimWorkerReporting {
  metrics?: OutcomeMetrics;
  events?: QueueBoxEvents;
  leaseAdvisor?: LeaseAdvisor;
}

/** What health checks read of a worker. */
export interface ClaimWorkerStatus {
  state: PollLoopState;
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
  inFlight: number;
  /** Rows whose work may run at once now (moves with an adaptive pace). */
  concurrency: number;
  /** Most rows one claim asks for now. */
  batchSize: number;
  /** Claims this worker lost recently, oldest first (a bounded list). */
  lostClaims: readonly LostClaim[];
}

/**
 * Empty claims in a row after which a worker sleeps until woken, when a claim could not see the
 * whole queue (a walk cut short by its bound): the cursor moves on each time, so the next wake-up
 * or poll continues the sweep instead of sweeping everything at once.
 */
const MAX_EMPTY_CLAIMS = 2;

/**
 * The loop shared by the outbox poller, the inbox relay and pull workers: claim up to the free
 * slots in bounded claims (a walk over keys that resumes where the last one stopped), run each
 * row's work concurrently, keep every row's lease with one renewal per third of the lease, and
 * drain on shutdown. It owns the one outcome path of every row: the max-attempts guard, the
 * fenced finishing write with the hand-off of the key's next row, retry with backoff or
 * dead-letter, the report of a lost claim; and their metrics, events, logs and spans. Its role
 * says how to claim and what a row's work is.
 */
export class ClaimWorker<Row extends ClaimedRow> {
  private readonly logger: Logger;
  private readonly outcomes: ClaimOutcomes;
  private readonly pace: ClaimPace;
  /**
   * The claiming loops. Two when the slots hold two batches: a claim takes milliseconds, and one
   * at a time would cap a busy replica at a batch per claim's duration while its rows are
   * processed in parallel anyway. SKIP LOCKED keeps their claims apart.
   */
  private readonly lanes: PollLoop[];
  /** Aborted when shutdown stops waiting for the work still running. */
  private readonly abandon = new AbortController();
  private readonly leases: LeaseGroup;
  /** Autocommit finishing writes (work done outside a transaction), batched. */
  private readonly completions: CompletionBatcher<Row>;
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
      inFlight: this.inFlight.size,
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
   * Claim now: new rows may be claimable. Where a lane sleeps, that lane alone claims: two claims
   * for the same few new rows would leave one of them empty (a lane whose claim comes back full
   * wakes the others). Where none sleeps, every lane claims again when its tick or back-off ends,
   * so that a lane backing off after a failure cannot hold the new rows back.
   */
  wake(): void {
    this.emptyClaims = 0;
    this.idle = false;
    const sleeping = this.lanes.find((lane) => lane.sleeping);
    if (sleeping) sleeping.wake();
    else for (const lane of this.lanes) lane.wake();
  }

  /**
   * Stops claiming, waits up to `shutdownTimeoutMs` for the rows in flight, then aborts what is
   * left and returns; those rows stay `processing` until their lease ends and are reclaimed
   * (docs/concepts/claims-and-leases.md, "Reclaim"). With `shutdown: 'release'`, the work is told
   * to stop first, and rows still waiting for a slot are given back at once.
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

  /** True while the worker claims and hands on: false once its shutdown began. */
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

  /** The tick's claim: as many rows as there are free slots, or a wait for a free slot. */
  private async claimStep(now: number, signal: AbortSignal): Promise<TickResult> {
    if (this.pace.observe(now)) this.paceChanged();
    const { batchSize, concurrency } = this.pace;
    const { leaseMs } = this.settings;
    const ahead = this.settings.claimAhead;
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
      result = await this.role.claim(request);
    } finally {
      this.reserved -= wanted;
    }
    const { rows, progress, skipped } = result;
    this.takeOver(rows);
    this.pace.claimed(wanted, rows.length, this.inFlight.size + this.reserved);
    if (rows.length < wanted) this.notifySlotWaiters();
    this.idle = rows.length === 0;
    if (skipped === 'contended') this.logger.warn(claimContended(this.settings.name));
    // A claim that did not run saw nothing: its walk stays where it was.
    if (skipped) return 'idle';
    const sawEverything = this.cursor.advance(request, progress);
    if (rows.length === wanted) {
      // More may be waiting: the lanes asleep join in.
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
   * Whether a lane's failed tick is news: the lanes claim side by side and fail together (a
   * database down, a table missing), so a failure is logged once, by the lane whose count of
   * consecutive failures passes every other lane's. One line per failed poll of the worker, with
   * the count health and the admin report (the highest of its lanes').
   */
  private leadsFailures(lane: number): boolean {
    const failures = this.lanes[lane].consecutiveErrors;
    return this.lanes.every((other, index) => index === lane || other.consecutiveErrors < failures);
  }

  private wakeSleepingLanes(): void {
    for (const lane of this.lanes) if (lane.sleeping) lane.wake();
  }

  /** New limits: a higher one starts rows waiting for a slot, and lets a lane waiting for room claim. */
  private paceChanged(): void {
    const { concurrency, batchSize } = this.pace;
    this.settings.onPace?.(concurrency, batchSize);
    while (this.waiting.length > 0 && this.running < concurrency) {
      this.running++;
      this.waiting.shift()!();
    }
    this.notifySlotWaiters();
  }

  /** Rows this worker owns now, claimed by the loop or handed on by a completion. */
  private takeOver(rows: readonly Row[]): void {
    const inverted = rows.filter((row) => row.inverted);
    if (inverted.length > 0)
      this.outcomes.inverted(inverted.map((row) => ({ ...this.role.identify(row), key: row.key })));
    for (const row of rows) this.track(row);
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
      this.outcomes.leaseUsed(
        this.role.identify(row).stream,
        this.settings.leaseMs,
        performance.now() - started,
        lease.lost,
      );
      this.inFlight.delete(task);
      this.giveSlot();
      this.notifySlotWaiters();
    });
    this.inFlight.add(task);
  }

  private claimOf(row: Row): Claim {
    return { component: this.settings.claimer.component, id: row.id, token: row.token, leaseMs: this.settings.leaseMs };
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
      if (waited && this.stopping && this.settings.claimer.shutdown === 'release') {
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
      const span = this.role.openSpan?.(row);
      if (!span) await this.settle(row, lease);
      else await endSpanWith(span, () => this.settle(row, lease, span));
    } catch (error) {
      // A database failure of an autocommit finishing write: the row stays processing and is reclaimed.
      this.logger.error(rowFinishingWriteFailed(this.settings.claimer.noun), {
        ...this.role.identify(row).fields,
        error: errorText(error),
      });
    }
  }

  /**
   * Runs a row's work and writes how it ended; returns that, for the row's span. The work's
   * `finish` writes success; a failed work is retried or dead-lettered (`fail`). A lost claim or
   * a row shutdown gave up on changes nothing more. A failed autocommit finishing write throws:
   * the row is left to the reclaim.
   */
  private async settle(row: Row, lease: Lease, span?: MessageSpan): Promise<SpanOutcome> {
    const started = performance.now();
    let seconds: number | undefined;
    let handedOn: readonly Row[] = [];
    let finished = false;
    let lostAtFinish = false;
    let finishFailed = false;
    const job: RowJob = {
      get signal() {
        return lease.signal;
      },
      span,
      finish: async (manager?: EntityManager) => {
        if (finished) throw new Error(rowFinishedTwice(this.settings.claimer.noun));
        finished = true;
        seconds = (performance.now() - started) / 1000;
        lease.release();
        // Found lost by a renewal (reported then), or given up by shutdown: nothing more is written.
        if (lease.lost) throw lease.signal.reason;
        if (this.abandon.signal.aborted) throw this.abandon.signal.reason;
        let lost: boolean;
        try {
          if (manager) {
            const result = await this.repository.completeMany<Row>([lease.claim], this.handOffLeaseMs, { manager });
            lost = result.lost.length > 0;
            handedOn = result.claimed;
          } else {
            lost = (await this.completions.complete(lease.claim)) === 'lost';
          }
        } catch (error) {
          finishFailed = !manager;
          throw error;
        }
        if (!lost) return;
        lostAtFinish = true;
        const error = new ClaimLostError(
          lease.claim.component,
          lease.claim.id,
          claimLost(lease.claim.component, lease.claim.id),
        );
        lease.markLost(error);
        throw error;
      },
    };
    try {
      await (span ? span.run(() => this.role.work(row, job)) : this.role.work(row, job));
      // Success is the finishing write: work that skipped it would leave its row to the reclaim.
      if (!finished) throw new Error(rowNotFinished(this.settings.claimer.noun));
    } catch (error) {
      seconds ??= (performance.now() - started) / 1000;
      // A lost claim or a failed finishing write counts against the pace like a failed work (not shutdown's give-up).
      if (lostAtFinish || (!this.abandon.signal.aborted && (lease.lost || finishFailed)))
        this.pace.record('failed', seconds * 1000);
      if (lostAtFinish) {
        this.outcomes.lost(this.role.identify(row), 'finish', undefined, seconds);
        return 'lost';
      }
      if (lease.lost) return 'lost';
      if (this.abandon.signal.aborted) return 'abandoned';
      if (finishFailed) throw error;
      span?.recordError(error);
      lease.release();
      return this.fail(row, lease, this.role.failureOf?.(error) ?? { error, retryable: true }, seconds);
    }
    this.pace.record('ok', seconds === undefined ? undefined : seconds * 1000);
    this.outcomes.ended(this.role.identify(row), 'done', seconds);
    this.role.succeeded?.(row);
    // Claimed by the finishing write's hand-off, in the transaction that committed just now.
    this.takeOver(handedOn);
    return this.settings.claimer.table.done;
  }

  /**
   * The outcome path of a row whose work failed (its lease already released): retried after
   * backoff (at least `retryAfterMs`), or dead when it is not retryable or out of attempts; back to
   * pending at once when shutdown stopped the work of a worker that releases rows on shutdown; never
   * dead when the worker gives the row back (`giveBack`). The write is fenced; a lost claim is
   * reported and nothing more is written.
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
    this.outcomes.ended(identity, dead ? 'dead' : 'retried', seconds);
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

  /** Takes a slot now (undefined), or returns the promise of the slot this row waits for. */
  private takeSlot(): Promise<void> | undefined {
    if (this.running < this.pace.concurrency) {
      this.running++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A row's work ended: its slot goes to the row that waited longest, unless a lower limit takes it back. */
  private giveSlot(): void {
    if (this.waiting.length === 0 || this.running > this.pace.concurrency) this.running--;
    else this.waiting.shift()!();
  }

  /** Shutdown: every waiting row starts now, to give its claim back (or, where rows are not released, to run). */
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
