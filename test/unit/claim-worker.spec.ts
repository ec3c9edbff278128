import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClaimRepository } from '../../lib/claims/claim.repository.js';
import type { Lease } from '../../lib/claims/lease-group.js';
import type { ClaimRequest } from '../../lib/dialects/sql-dialect.interface.js';
import type { ClaimResult } from '../../lib/dialects/statement-results.js';
import { ClaimWorker, type ClaimedRow, type ClaimWorkerSettings } from '../../lib/runtime/claim-worker.js';

/** A worker over an in-memory queue: each row's work ends when the test says so. */
class TestWorker extends ClaimWorker<ClaimedRow> {
  readonly claims: number[] = [];
  readonly finish = new Map<number, () => void>();
  readonly abandoned: number[] = [];
  private next = 0;
  private reclaims = 0;
  /** The reclaim step of tick number `blockAt` waits for `gate`. */
  reclaimBlock?: { blockAt: number; gate: Promise<void> };

  constructor(
    settings: Partial<ClaimWorkerSettings>,
    private remaining: number,
  ) {
    const backoff = { initialDelayMs: 1_000, multiplier: 2, maxDelayMs: 60_000, jitter: 'none' } as const;
    const repository = { renewMany: async () => [] } as unknown as ClaimRepository;
    super(
      { name: 'test', component: 'outbox', noun: 'test row', maxAttempts: 10, backoff, leaseMs: 60_000, pollIntervalMs: 60_000, batchSize: 4, concurrency: 10, shutdownTimeoutMs: 1_000, ...settings },
      repository,
    );
  }

  start(): void {
    this.startLoop();
  }

  stop(): Promise<void> {
    return this.drain();
  }

  protected streamOf(): string {
    return 'memory';
  }

  protected describe(): string {
    return 'an in-memory queue';
  }

  protected override async reclaim(): Promise<void> {
    this.reclaims += 1;
    if (this.reclaims === this.reclaimBlock?.blockAt) await this.reclaimBlock.gate;
  }

  /** The queue has no keys: every claim sees all of it (an empty walk, an empty window). */
  protected async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedRow>> {
    this.claims.push(request.batchSize);
    const rows = Array.from({ length: Math.min(request.batchSize, this.remaining) }, () => ({ id: String(this.next++), token: 't', attempts: 1, key: null }));
    this.remaining -= rows.length;
    return { rows, progress: { windowRows: 0, walked: 0 } };
  }

  protected process(row: ClaimedRow, _lease: Lease): Promise<void> {
    const id = Number(row.id);
    return new Promise((resolve) => {
      this.finish.set(id, resolve);
      this.abandon.signal.addEventListener('abort', () => {
        this.abandoned.push(id);
        resolve();
      });
    });
  }

  protected countOutcome(): void {}

  protected logFields(row: ClaimedRow): Record<string, unknown> {
    return { rowId: row.id };
  }

  done(...rows: number[]): void {
    for (const row of rows) this.finish.get(row)!();
  }
}

describe('ClaimWorker', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Logger.overrideLogger(false);
  });
  afterEach(() => vi.useRealTimers());

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
    let inside = 0;
    let most = 0;
    const claim = worker['claim'].bind(worker);
    worker['claim'] = async (request) => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 10));
      inside -= 1;
      return claim(request);
    };
    worker.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(most).toBe(2);
    expect(worker.claims).toEqual([4, 4]);
    expect(worker.status.inFlight).toBe(8);
    const stopping = worker.stop();
    for (const row of worker.finish.keys()) worker.done(row);
    await vi.advanceTimersByTimeAsync(10);
    await stopping;
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
});
