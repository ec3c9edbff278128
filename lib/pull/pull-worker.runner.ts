import { performance } from 'node:perf_hooks';
import type { ClaimRepository } from '../claims/claim.repository.js';
import type { Lease } from '../claims/lease-group.js';
import type { StatementRunner } from '../claims/statement-runner.js';
import type { ClaimRequest } from '../dialects/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimResult } from '../dialects/statement-results.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import { toInboxMessage } from '../inbox/inbox-message.mapper.js';
import type { InboxMessage } from '../interfaces/inbox-message.interface.js';
import type { PullContext } from '../interfaces/pull.interface.js';
import type { QueueBoxEvents } from '../events/queuebox-events.service.js';
import type { LeaseAdvisor } from '../leases/lease-advisor.js';
import type { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import { claimLost, shutdownReason } from '../queuebox.messages.js';
import { ClaimWorker, type RowOutcome } from '../runtime/claim-worker.js';
import type { SpanOutcome } from '../tracing/messaging-attributes.js';
import { endSpanWith, type MessageSpan, messagingTracer } from '../tracing/messaging-tracer.js';
import type { PullWorkerHost } from './pull-worker.host.js';
import type { ResolvedPullWorker } from './resolve-pull-worker-options.js';

/** What a runner needs besides its worker. */
export interface PullWorkerRunnerDeps {
  repository: ClaimRepository;
  runner: StatementRunner;
  metrics: QueueBoxMetrics;
  /** The bounded metric label of the worker's source. */
  label: string;
  /** The dialect takes the claim lock on every claim (SQL Server), whatever `claimLock` says. */
  claimLockAlways: boolean;
  /** Samples the inbox backlog gauges of the pull sources; one runner of the explorer does it. */
  sampleBacklog?: { every: number; sample(): Promise<void> };
  leaseAdvisor?: LeaseAdvisor;
  events?: QueueBoxEvents;
}

/**
 * Runs one `@PullWorker`: claims rows of its source with its lease (pending, or processing with
 * an expired lease; no reclaim step), and for each row opens a transaction, calls `handle`, and
 * completes the row in that transaction. A lost claim (renewal or completion) aborts the
 * handler's signal and rolls the transaction back; a failing handler is retried with backoff,
 * then dead-lettered; a handler that shutdown stopped gives its row back at once.
 */
export class PullWorkerRunner extends ClaimWorker<ClaimedInboxRow> {
  constructor(
    private readonly host: PullWorkerHost,
    private readonly worker: ResolvedPullWorker,
    private readonly deps: PullWorkerRunnerDeps,
  ) {
    super(
      {
        name: `PullWorker:${worker.name}`,
        component: 'pull',
        noun: 'pulled message',
        maxAttempts: worker.maxAttempts,
        backoff: worker.backoff,
        releaseOnShutdown: true,
        leaseMs: worker.leaseMs,
        streams: [worker.source],
        pollIntervalMs: worker.pollIntervalMs,
        batchSize: worker.concurrency,
        concurrency: worker.concurrency,
        claimAhead: worker.claimAhead,
        shutdownTimeoutMs: worker.shutdownTimeoutMs,
        sampleEveryMs: deps.sampleBacklog?.every,
        onLoopError: () => deps.metrics.loopError(`pull:${deps.label}`),
        onLoopTick: deps.metrics.loopTicker(`pull:${deps.label}`),
        leaseAdvisor: deps.leaseAdvisor,
        events: deps.events,
      },
      deps.repository,
    );
  }

  protected describe(): string {
    const lock = this.worker.claimLock || this.deps.claimLockAlways ? ', claim lock' : '';
    return `source ${this.worker.source}, lease ${this.worker.leaseMs} ms, claim ahead ${this.worker.claimAhead}${lock}`;
  }

  protected override async sample(): Promise<void> {
    await this.deps.sampleBacklog?.sample();
  }

  get source(): string {
    return this.worker.source;
  }

  get pollIntervalMs(): number {
    return this.worker.pollIntervalMs;
  }

  start(): void {
    this.startLoop();
  }

  /** Stops claiming, signals the handlers, and waits for them up to the shutdown timeout. */
  async stop(): Promise<void> {
    // Handlers see shutdown on their signal; their leases are renewed until they end. A handler
    // that fails because of it gives its row back at once (`releaseOnShutdown`).
    this.stopping = true;
    this.leases.cancelAll(new Error(shutdownReason()));
    await this.drain();
  }

  protected async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    const result = await this.repository.claimPull(this.worker.source, request, { lock: this.worker.claimLock });
    this.countInversions(result.rows);
    return result;
  }

  /** Handles one claimed row to its end, in a `process` span when an SDK records spans. */
  protected async process(row: ClaimedInboxRow, lease: Lease): Promise<void> {
    const message = toInboxMessage(row);
    const span = messagingTracer()?.process('pull', message.source, message.idempotencyKey, row.attempts, message.headers);
    if (!span) await this.handleRow(row, message, lease);
    else await endSpanWith(span, () => this.handleRow(row, message, lease, span));
  }

  private async handleRow(row: ClaimedInboxRow, message: InboxMessage, lease: Lease, span?: MessageSpan): Promise<SpanOutcome> {
    const started = performance.now();
    const work = (): Promise<ClaimedInboxRow[]> => this.handleInTransaction(message, lease);
    const result = await this.runLeased(lease, span ? () => span.run(work) : work);
    if (result.outcome === 'left') return lease.lost ? 'lost' : 'abandoned';
    if (result.outcome === 'failed') {
      span?.recordError(result.error);
      return this.fail(row, lease, { error: result.error, retryable: true });
    }
    this.deps.metrics.pullHandled(this.deps.label, 'processed', (performance.now() - started) / 1000);
    this.countInversions(result.value);
    this.adopt(result.value);
    return 'processed';
  }

  /**
   * `handle` and the completion in one transaction. The lease is released before the completion
   * (its renewal skips rows another transaction holds, so it never waits for this one). A claim
   * lost meanwhile rolls everything back. The completion hands the key on to its next row, which
   * comes back once the transaction committed.
   */
  private async handleInTransaction(message: InboxMessage, lease: Lease): Promise<ClaimedInboxRow[]> {
    return this.deps.runner.withManager(async (manager) => {
      // The signal is made on first read: most handlers never read it, and each costs an AbortController.
      const context: PullContext = {
        manager,
        get signal() {
          return lease.signal;
        },
        source: message.source,
        idempotencyKey: message.idempotencyKey,
      };
      await this.host.handle(message, context);
      lease.release();
      if (lease.lost) throw lease.signal.reason;
      const { lost, claimed } = await this.repository.completeMany<ClaimedInboxRow>([lease.claim], this.handOffLeaseMs, { manager });
      if (lost.length > 0) throw new ClaimLostError('pull', lease.claim.id, claimLost('pull', lease.claim.id));
      return claimed;
    });
  }

  private countInversions(rows: readonly ClaimedInboxRow[]): void {
    const inverted = rows.filter((row) => row.inverted);
    if (inverted.length === 0) return;
    this.deps.metrics.pullOrderInversions(this.deps.label, inverted.length);
    for (const row of inverted) this.deps.events?.emit('order.inversion', { component: 'pull', id: row.id, stream: this.deps.label, key: row.key });
  }

  protected streamOf(): string {
    return this.deps.label;
  }

  protected countOutcome(_row: ClaimedInboxRow, outcome: RowOutcome): void {
    if (outcome === 'lost') this.deps.metrics.claimLost('pull');
    this.deps.metrics.pullHandled(this.deps.label, outcome);
  }

  protected logFields(row: ClaimedInboxRow): Record<string, unknown> {
    return { rowId: row.id, source: row.source };
  }
}
