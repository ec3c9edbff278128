import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClaimRepository } from '../../lib/engine/claim.repository.js';
import type { ClaimRequest } from '../../lib/database/sql-dialect.interface.js';
import type { Claim } from '../../lib/shared/interfaces/claim.interface.js';
import type { ClaimResult } from '../../lib/database/statement-results.js';
import type { ReportedRow } from '../../lib/engine/claim-outcomes.js';
import type { ClaimPace, PaceOutcome } from '../../lib/engine/claim-pace.js';
import type { ClaimedRow, ClaimRole, RowFailure, RowJob } from '../../lib/engine/claim-role.interface.js';
import { ClaimWorker, type ClaimWorkerSettings, type ClaimWorkerStatus } from '../../lib/engine/claim-worker.js';
import { CLAIMERS } from '../../lib/shared/queuebox.claimers.js';

/** A worker over an in-memory queue: each row's work ends when the test says so. */
class TestWorker implements ClaimRole<ClaimedRow> {
  readonly claims: number[] = [];
  readonly finish = new Map<number, () => void>();
  /** Rows whose work was told to stop (a lost claim, shutdown), in order. */
  readonly abandoned: number[] = [];
  /** Rows whose work began, in order. */
  readonly started: number[] = [];
  /** Rows given back by a retry write: [id, delay ms]. */
  readonly retried: [number, number][] = [];
  /** Rows marked finished by a completion statement. */
  readonly completed: number[] = [];
  /** Rows whose finishing write finds the claim lost. */
  readonly losesAtFinish = new Set<number>();
  /** Rows dead-lettered. */
  readonly dead: number[] = [];
  /** Rows whose work fails at once, and how the role reads the failure. */
  readonly failing = new Map<number, RowFailure>();
  /** How rows ended, as the worker reported them: [id, outcome]. */
  readonly outcomes: [string, string][] = [];
  private readonly worker: ClaimWorker<ClaimedRow>;
  private next = 0;
  private reclaims = 0;
  /** The reclaim step of tick number `blockAt` waits for `gate`. */
  reclaimBlock?: { blockAt: number; gate: Promise<void> };
  /** The worker writes the finishing write once the work resolved (the work does not call `finish`). */
  finishAfterWork = false;
  /** Every completion statement fails with it while set (the database down). */
  completeError?: Error;

  constructor(
    settings: Partial<ClaimWorkerSettings>,
    private remaining: number,
  ) {
    const backoff = { initialDelayMs: 1_000, multiplier: 2, maxDelayMs: 60_000, jitter: 'none' } as const;
    const { retried, completed, losesAtFinish, outcomes, dead } = this;
    const repository = {
      renewMany: async () => [],
      completeMany: async (claims: Claim[]) => {
        if (this.completeError) throw this.completeError;
        const lost = claims.filter((claim) => losesAtFinish.has(Number(claim.id)));
        completed.push(...claims.filter((claim) => !lost.includes(claim)).map((claim) => Number(claim.id)));
        return { lost, claimed: [] };
      },
      retry: async (claim: { id: string }, delayMs: number) => {
        retried.push([Number(claim.id), delayMs]);
        return 'ok';
      },
      deadLetter: async (claim: { id: string }) => {
        dead.push(Number(claim.id));
        return 'ok';
      },
    } as unknown as ClaimRepository;
    this.worker = new ClaimWorker(
      {
        name: 'test',
        claimer: { ...CLAIMERS.outbox, noun: 'test row' },
        maxAttempts: 10,
        backoff,
        leaseMs: 60_000,
        pollIntervalMs: 60_000,
        batchSize: 4,
        concurrency: 10,
        adaptive: false,
        claimAhead: 0,
        shutdownTimeoutMs: 1_000,
        ...settings,
      },
      repository,
      this,
      {
        metrics: {
          rowEnded: (_component, stream, outcome) => void outcomes.push([stream, outcome]),
          orderInversions: () => undefined,
        },
      },
    );
  }

  get status(): ClaimWorkerStatus {
    return this.worker.status;
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  wake(): void {
    this.worker.wake();
  }

  stream(row: ClaimedRow): string {
    return `row ${row.id}`;
  }

  identify(row: ClaimedRow): ReportedRow {
    return { id: row.id, stream: this.stream(row), fields: { rowId: row.id } };
  }

  describe(): string {
    return 'an in-memory queue';
  }

  async reclaim(): Promise<void> {
    this.reclaims += 1;
    if (this.reclaims === this.reclaimBlock?.blockAt) await this.reclaimBlock.gate;
  }

  /** Each claim takes this long (on the fake clock), so that the lanes' claims may overlap. */
  claimDelayMs = 0;
  /** The most claims seen running at once. */
  mostClaimsAtOnce = 0;
  /** Every claim fails with it while set (a database down, a table missing). */
  claimError?: Error;
  /** Claims that failed with `claimError`. */
  failedClaims = 0;
  /** The backlog sample fails with it while set. */
  sampleError?: Error;

  async sample(): Promise<void> {
    if (this.sampleError) throw this.sampleError;
  }
  private claimsRunning = 0;

  /** The queue has no keys: every claim sees all of it (an empty walk, an empty window). */
  async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedRow>> {
    if (this.claimError) {
      this.failedClaims += 1;
      throw this.claimError;
    }
    this.claimsRunning += 1;
    this.mostClaimsAtOnce = Math.max(this.mostClaimsAtOnce, this.claimsRunning);
    if (this.claimDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.claimDelayMs));
    this.claimsRunning -= 1;
    this.claims.push(request.batchSize);
    const rows = Array.from({ length: Math.min(request.batchSize, this.remaining) }, () => ({
      id: String(this.next++),
      token: 't',
      attempts: 1,
      key: null,
    }));
    this.remaining -= rows.length;
    return { rows, progress: { windowRows: 0, walked: 0 } };
  }

  async work(row: ClaimedRow, job: RowJob): Promise<void> {
    const id = Number(row.id);
    this.started.push(id);
    const failure = this.failing.get(id);
    if (failure) throw failure.error;
    job.signal.addEventListener('abort', () => this.abandoned.push(id));
    await new Promise<void>((resolve) => this.finish.set(id, resolve));
    if (!this.finishAfterWork) await job.finish();
  }

  failureOf(error: unknown): RowFailure {
    return [...this.failing.values()].find((failure) => failure.error === error) ?? { error, retryable: true };
  }

  /** Rows committed to the queue since. */
  add(rows: number): void {
    this.remaining += rows;
  }

  done(...rows: number[]): void {
    for (const row of rows) this.finish.get(row)!();
  }
}

/** A pace the test moves by hand; it reports the change at the worker's next tick. */
class ManualPace implements ClaimPace {
  readonly adaptive = true;
  readonly outcomes: PaceOutcome[] = [];
  private changed = false;

  constructor(
    public concurrency: number,
    public batchSize: number,
  ) {}

  set(concurrency: number, batchSize: number): void {
    this.concurrency = concurrency;
    this.batchSize = batchSize;
    this.changed = true;
  }

  claimed(): void {}

  record(outcome: PaceOutcome): void {
    this.outcomes.push(outcome);
  }

  observe(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }
}

describe('ClaimWorker', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Logger.overrideLogger(false);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('claims batches up to the free slots, and while busy waits until half a batch of slots is free', async () => {
    const worker = new TestWorker({ batchSize: 4, concurrency: 10 }, 100);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    // 4 + 4 + 2 fill the 10 slots.
    expect(worker.claims).toEqual([4, 4, 2]);
    worker.done(0);
    await vi.advanceTimersByTimeAsync(0);
    // One free slot is not worth a claim statement.
    expect(worker.claims).toEqual([4, 4, 2]);
    worker.done(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.claims).toEqual([4, 4, 2, 2]);
    expect(worker.status.inFlight).toBe(10);
    worker.done(2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    await vi.advanceTimersByTimeAsync(0);
    const stopping = worker.stop();
    for (const row of worker.finish.keys()) worker.done(row);
    await vi.advanceTimersByTimeAsync(0);
    await stopping;
  });

  it('follows its pace: a raised limit claims more at the next tick, a lowered one claims nothing until the rows in flight fall under it', async () => {
    const pace = new ManualPace(4, 2);
    const paced: [number, number][] = [];
    const worker = new TestWorker(
      { pace, onPace: (concurrency, batchSize) => void paced.push([concurrency, batchSize]) },
      100,
    );
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.claims).toEqual([2, 2]);
    expect(worker.status).toMatchObject({ inFlight: 4, concurrency: 4, batchSize: 2 });
    pace.set(8, 4);
    worker.done(0);
    await vi.advanceTimersByTimeAsync(0);
    // 8 slots, 3 taken: one batch of 4 (then 1 free slot is not worth a claim).
    expect(worker.claims).toEqual([2, 2, 4]);
    expect(worker.status).toMatchObject({ inFlight: 7, concurrency: 8, batchSize: 4 });
    expect(pace.outcomes).toEqual(['ok']);
    pace.set(2, 2);
    worker.done(1, 2, 3, 4);
    await vi.advanceTimersByTimeAsync(0);
    // 3 in flight over a limit of 2: nothing claimed.
    expect(worker.claims).toEqual([2, 2, 4]);
    expect(worker.status.inFlight).toBe(3);
    worker.done(5, 6);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.claims).toEqual([2, 2, 4, 1]);
    expect(paced).toEqual([
      [4, 2],
      [8, 4],
      [2, 2],
    ]);
    const stopping = worker.stop();
    for (const row of worker.finish.keys()) worker.done(row);
    await vi.advanceTimersByTimeAsync(0);
    await stopping;
  });

  it('a short claim means nothing more is claimable: it sleeps until woken', async () => {
    const worker = new TestWorker({ batchSize: 4, concurrency: 4 }, 3);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.claims).toEqual([4]);
    worker.done(0, 1, 2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(worker.claims).toEqual([4]);
    worker.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.claims).toEqual([4, 4]);
    await worker.stop();
  });

  it('with room for two batches, runs two claims at once, and never claims more than the free slots', async () => {
    const worker = new TestWorker({ batchSize: 4, concurrency: 8 }, 100);
    worker.claimDelayMs = 10;
    worker.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(worker.mostClaimsAtOnce).toBe(2);
    expect(worker.claims).toEqual([4, 4]);
    expect(worker.status.inFlight).toBe(8);
    const stopping = worker.stop();
    for (const row of worker.finish.keys()) worker.done(row);
    await vi.advanceTimersByTimeAsync(10);
    await stopping;
  });

  it('a wake-up starts one claim, on a sleeping lane; a claim that comes back full wakes the other lane', async () => {
    const worker = new TestWorker({ batchSize: 4, concurrency: 12 }, 0);
    worker.claimDelayMs = 10;
    worker.start();
    await vi.advanceTimersByTimeAsync(10);
    // Both lanes claim at start, and find nothing.
    expect(worker.claims).toEqual([4, 4]);
    worker.add(2);
    worker.wake();
    await vi.advanceTimersByTimeAsync(10);
    // One claim for the two new rows, not one per lane (the second would come back empty).
    expect(worker.claims).toEqual([4, 4, 4]);
    expect(worker.status.inFlight).toBe(2);
    worker.done(0, 1);
    await vi.advanceTimersByTimeAsync(10);
    expect(worker.claims).toHaveLength(3);
    worker.mostClaimsAtOnce = 0;
    worker.add(100);
    worker.wake();
    await vi.advanceTimersByTimeAsync(30);
    // The first claim came back full: the lane asleep joined in, and the two claimed side by side.
    expect(worker.mostClaimsAtOnce).toBe(2);
    expect(worker.status.inFlight).toBe(12);
    const stopping = worker.stop();
    for (const row of worker.finish.keys()) worker.done(row);
    await vi.advanceTimersByTimeAsync(10);
    await stopping;
  });

  it('logs a failed poll once, with the worker’s count of consecutive failures, though both its lanes claimed and failed', async () => {
    const error = vi.spyOn(Logger.prototype, 'error');
    // Room for two batches: two lanes.
    const worker = new TestWorker({ batchSize: 4, concurrency: 10, pollIntervalMs: 100 }, 100);
    worker.claimError = new Error('relation "queuebox_outbox_messages" does not exist');
    worker.start();
    while (worker.failedClaims < 6) await vi.advanceTimersByTimeAsync(100);
    const logged = error.mock.calls
      .filter(([message]) => message === 'poll tick failed')
      .map(([, fields]) => (fields as { consecutiveErrors: number }).consecutiveErrors);
    const { consecutiveErrors } = worker.status;
    expect(consecutiveErrors).toBeGreaterThanOrEqual(3);
    // One line per failure of the worker: 1, 2, 3…, never one per lane (1, 1, 2, 2…).
    expect(logged).toEqual(Array.from({ length: consecutiveErrors }, (_, i) => i + 1));
    expect(logged.length).toBeLessThan(worker.failedClaims);
    await worker.stop();
  });

  it('logs a failed gauge sample only when the poll’s claim goes through: a poll that fails is one line for both', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const error = vi.spyOn(Logger.prototype, 'error');
    const lines = (spy: typeof warn, message: string) => spy.mock.calls.filter(([text]) => text === message).length;
    const worker = new TestWorker({ batchSize: 4, concurrency: 4, pollIntervalMs: 100, sampleEveryMs: 0 }, 0);
    worker.claimError = worker.sampleError = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    worker.start();
    while (worker.failedClaims < 3) await vi.advanceTimersByTimeAsync(100);
    expect(lines(error, 'poll tick failed')).toBe(3);
    expect(lines(warn, 'gauge sample failed')).toBe(0);
    // The claims work again, the gauges' query does not: its failure is news.
    worker.claimError = undefined;
    for (let i = 0; i < 100 && lines(warn, 'gauge sample failed') === 0; i++) await vi.advanceTimersByTimeAsync(100);
    expect(lines(warn, 'gauge sample failed')).toBeGreaterThan(0);
    await worker.stop();
  });

  it('drain stops claiming and waits for the work in flight', async () => {
    const worker = new TestWorker({}, 2);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    let drained = false;
    const stopping = worker.stop().then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(drained).toBe(false);
    worker.done(0, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(drained).toBe(true);
    expect(worker.abandoned).toEqual([]);
    await stopping;
  });

  it('drain gives up after shutdownTimeoutMs, even while the loop waits for a free slot, and abandons the rest', async () => {
    // Every slot busy: the loop waits for one to free up when shutdown begins.
    const worker = new TestWorker({ batchSize: 2, concurrency: 2, shutdownTimeoutMs: 1_000 }, 10);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.status.inFlight).toBe(2);
    let drained = false;
    const stopping = worker.stop().then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(drained).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(drained).toBe(true);
    expect(worker.abandoned).toEqual([0, 1]);
    expect(worker.claims).toEqual([2]);
    await stopping;
  });

  it('a stop that lands during a tick, before the tick waits for a free slot, still drains within shutdownTimeoutMs', async () => {
    let openGate!: () => void;
    const worker = new TestWorker({ batchSize: 2, concurrency: 2, shutdownTimeoutMs: 1_000, reclaimEveryMs: 0 }, 10);
    // The second tick is in its reclaim step when shutdown begins; it then finds every slot busy.
    worker.reclaimBlock = { blockAt: 2, gate: new Promise((resolve) => (openGate = resolve)) };
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.status.inFlight).toBe(2);
    let drained = false;
    const stopping = worker.stop().then(() => (drained = true));
    openGate();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(drained).toBe(true);
    expect(worker.abandoned).toEqual([0, 1]);
    await stopping;
  });

  it('claims a batch ahead: at most concurrency rows run, the rest wait for a slot in claim order, and busy claims are whole batches', async () => {
    const worker = new TestWorker({ batchSize: 4, concurrency: 4, claimAhead: 4 }, 100);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    // The first batch runs; the second is claimed while it runs, and waits.
    expect(worker.claims).toEqual([4, 4]);
    expect(worker.started).toEqual([0, 1, 2, 3]);
    expect(worker.status.inFlight).toBe(8);
    worker.done(0);
    await vi.advanceTimersByTimeAsync(0);
    // A freed slot goes to the row that waited longest; one free place is not worth a claim.
    expect(worker.started).toEqual([0, 1, 2, 3, 4]);
    expect(worker.claims).toEqual([4, 4]);
    worker.done(1, 2, 3);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(worker.claims).toEqual([4, 4, 4]);
    const stopping = worker.stop();
    for (let row = 4; row < 12; row++) {
      worker.done(row);
      await vi.advanceTimersByTimeAsync(0);
    }
    await stopping;
    // Where rows are not released on shutdown, every claimed row is worked before the drain ends.
    expect(worker.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('on shutdown, a worker that releases rows gives the rows still waiting for a slot back at once, unworked', async () => {
    const worker = new TestWorker(
      {
        batchSize: 2,
        concurrency: 2,
        claimAhead: 2,
        claimer: { ...CLAIMERS.outbox, noun: 'test row', shutdown: 'release' },
      },
      100,
    );
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.started).toEqual([0, 1]);
    expect(worker.status.inFlight).toBe(4);
    let drained = false;
    const stopping = worker.stop().then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(0);
    // Rows 2 and 3 never ran: they went back to pending, due now.
    expect(worker.retried).toEqual([
      [2, 0],
      [3, 0],
    ]);
    expect(worker.started).toEqual([0, 1]);
    expect(drained).toBe(false);
    worker.done(0, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(drained).toBe(true);
    await stopping;
  });

  it('a finishing write that finds the claim lost is reported once, as lost, and nothing more is written for the row', async () => {
    const worker = new TestWorker({ batchSize: 2, concurrency: 2 }, 2);
    worker.losesAtFinish.add(1);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    worker.done(0, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.completed).toEqual([0]);
    expect(worker.outcomes).toEqual([
      ['row 0', 'done'],
      ['row 1', 'lost'],
    ]);
    expect(worker.retried).toEqual([]);
    expect(worker.status.lostClaims).toEqual([{ id: '1', during: 'finish', at: expect.any(Date) }]);
    await worker.stop();
  });

  it('with a role whose rows the worker finishes, the worker marks a row once its work resolved; a lost mark is reported once, as lost', async () => {
    const pace = new ManualPace(3, 3);
    const worker = new TestWorker({ batchSize: 3, concurrency: 3, pace }, 3);
    worker.finishAfterWork = true;
    worker.losesAtFinish.add(1);
    worker.failing.set(2, { error: new Error('publish failed'), retryable: true });
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.retried).toEqual([[2, 1_000]]);
    expect(worker.completed).toEqual([]);
    worker.done(0, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.completed).toEqual([0]);
    expect(worker.outcomes).toEqual([
      ['row 2', 'retried'],
      ['row 0', 'done'],
      ['row 1', 'lost'],
    ]);
    expect(pace.outcomes).toEqual(['failed', 'ok', 'failed']);
    expect(worker.status.lostClaims).toEqual([{ id: '1', during: 'finish', at: expect.any(Date) }]);
    expect(worker.status.inFlight).toBe(0);
    await worker.stop();
  });

  it('with a role whose rows the worker finishes, a failed mark statement is logged and leaves the row to the reclaim', async () => {
    const errors = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const worker = new TestWorker({ batchSize: 1, concurrency: 1 }, 1);
    worker.finishAfterWork = true;
    worker.completeError = new Error('connection terminated');
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    worker.done(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.completed).toEqual([]);
    expect(worker.retried).toEqual([]);
    expect(worker.outcomes).toEqual([]);
    expect(errors).toHaveBeenCalledWith(
      expect.stringContaining('finishing write'),
      expect.objectContaining({ rowId: '0', error: expect.stringContaining('connection terminated') }),
    );
    expect(worker.status.inFlight).toBe(0);
    await worker.stop();
  });

  it('a row the worker gives back (it cannot work on it) goes back to pending after its back-off, never dead, and says nothing to the pace', async () => {
    const pace = new ManualPace(2, 2);
    // One attempt allowed: a failed row is dead at its first failure, unless given back.
    const worker = new TestWorker({ batchSize: 2, concurrency: 2, maxAttempts: 1, pace }, 2);
    worker.failing.set(0, { error: new Error('publish failed'), retryable: true });
    worker.failing.set(1, {
      error: new Error('destination "y" is not configured on this instance'),
      retryable: true,
      giveBack: true,
    });
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.dead).toEqual([0]);
    expect(worker.retried).toEqual([[1, 1_000]]);
    expect(worker.outcomes.sort()).toEqual([
      ['row 0', 'dead'],
      ['row 1', 'retried'],
    ]);
    expect(pace.outcomes).toEqual(['failed']);
    await worker.stop();
  });

  it('work that ends after shutdown gave up on it writes nothing: the row is left to the reclaim', async () => {
    const worker = new TestWorker({ batchSize: 1, concurrency: 1, shutdownTimeoutMs: 1_000 }, 1);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    const stopping = worker.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    await stopping;
    worker.done(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(worker.completed).toEqual([]);
    expect(worker.retried).toEqual([]);
    expect(worker.outcomes).toEqual([]);
  });
});
