import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ClaimRepository } from '../claims/claim.repository.js';
import type { Lease } from '../claims/lease-group.js';
import { StatementRunner } from '../claims/statement-runner.js';
import type { ClaimRequest, SqlDialect } from '../dialects/sql-dialect.interface.js';
import type { ClaimedOutboxRow, ClaimResult } from '../dialects/statement-results.js';
import { PublishFailedError } from '../errors/publish-failed.error.js';
import { QueueBoxEvents } from '../events/queuebox-events.service.js';
import { LeaseAdvisor } from '../leases/lease-advisor.js';
import type { OutboxMessage } from '../interfaces/outbox-message.interface.js';
import { BacklogSampler } from '../metrics/backlog-sampler.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { PublisherRegistry } from '../publishers/publisher-registry.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { destinationNotHere, outboxMarkLost } from '../queuebox.messages.js';
import { ClaimWorker, type RowFailure, type RowOutcome } from '../runtime/claim-worker.js';
import type { SpanOutcome } from '../tracing/messaging-attributes.js';
import { endSpanWith, type MessageSpan, messagingTracer } from '../tracing/messaging-tracer.js';
import { WakeUpHub } from '../wakeup/wake-up.hub.js';
import { OutboxCompletionBatcher } from './outbox-completion-batcher.js';
import { toOutboxMessage } from './outbox-message.mapper.js';

/** How one publish ended, before its fenced write. */
type PublishResult = { ok: true } | ({ ok: false } & RowFailure);

/**
 * Claims outbox rows in batches, publishes each to its destination with bounded concurrency,
 * and finishes it with a fenced write: `sent`, a retry with backoff, or `dead`. Renews each
 * claim every third of the lease while it publishes, reclaims expired claims at most once per
 * `claimTimeoutMs / 5`, and drains on shutdown (docs/concepts/claims-and-leases.md).
 */
@Injectable()
export class OutboxPoller extends ClaimWorker<ClaimedOutboxRow> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly completions: OutboxCompletionBatcher;
  private readonly backlog: BacklogSampler;
  private unsubscribe?: () => void;

  constructor(
    repository: ClaimRepository,
    private readonly publishers: PublisherRegistry,
    private readonly metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    leaseAdvisor: LeaseAdvisor,
    private readonly events: QueueBoxEvents,
  ) {
    const outbox = options.outbox;
    super(
      {
      name: OutboxPoller.name,
      component: 'outbox',
      noun: 'outbox message',
      maxAttempts: outbox.maxAttempts,
      backoff: outbox.backoff,
      leaseMs: outbox.claimTimeoutMs,
      pollIntervalMs: outbox.pollIntervalMs,
      batchSize: outbox.batchSize,
      concurrency: outbox.concurrency,
      shutdownTimeoutMs: outbox.shutdownTimeoutMs,
      reclaimEveryMs: outbox.claimTimeoutMs / 5,
      sampleEveryMs: outbox.metricsIntervalMs,
      onLoopError: () => metrics.loopError('outbox'),
      onLoopTick: metrics.loopTicker('outbox'),
      leaseAdvisor,
      events,
      },
      repository,
    );
    // A key with a backlog flows from one completion to the next: the mark of a row claims the
    // key's next row in the same statement (not while shutting down: nothing new is taken then).
    this.completions = new OutboxCompletionBatcher(
      repository,
      () => this.handOffLeaseMs,
      (rows) => this.adoptHandedOn(rows),
    );
    this.backlog = new BacklogSampler(
      runner,
      () => dialect.outboxBacklog(),
      () => publishers.names(),
      (destination, pending, age) => metrics.outboxBacklogSample(destination, pending, age),
    );
  }

  onApplicationBootstrap(): void {
    if (!this.options.workersEnabled) return;
    this.unsubscribe = this.wakeUps.subscribe('outbox', () => this.wake());
    this.startLoop();
  }

  /**
   * Stops claiming, waits up to `outbox.shutdownTimeoutMs` for in-flight publishes, then
   * returns: rows still in flight stay `processing` and are reclaimed after their lease.
   * Runs before `@nestjs/typeorm` closes the DataSource.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.drain();
  }

  protected describe(): string {
    const { claimTimeoutMs, claimLock } = this.options.outbox;
    const lock = claimLock || this.dialect.claimLockAlways ? ', claim lock' : '';
    return `destinations ${this.publishers.names().join(', ') || 'none'}, lease ${claimTimeoutMs} ms${lock}`;
  }

  protected override async reclaim(): Promise<void> {
    const count = await this.repository.reclaimExpired('outbox');
    this.metrics.outboxMessagesReclaimed(count);
    if (count > 0) this.events.emit('rows.reclaimed', { table: 'outbox', count });
  }

  protected override sample(): Promise<void> {
    return this.backlog.sample();
  }

  protected async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedOutboxRow>> {
    const result = await this.repository.claimOutbox(request, { lock: this.options.outbox.claimLock });
    this.countInversions(result.rows);
    return result;
  }

  private adoptHandedOn(rows: readonly ClaimedOutboxRow[]): void {
    this.countInversions(rows);
    this.adopt(rows);
  }

  private countInversions(rows: readonly ClaimedOutboxRow[]): void {
    const inverted = rows.filter((row) => row.inverted);
    if (inverted.length === 0) return;
    this.metrics.outboxOrderInversions(inverted.length);
    for (const row of inverted) this.events.emit('order.inversion', { component: 'outbox', id: row.id, stream: row.destination, key: row.key });
  }

  protected streamOf(row: ClaimedOutboxRow): string {
    return row.destination;
  }

  /** Publishes one claimed row and finishes it. */
  protected async process(row: ClaimedOutboxRow, lease: Lease): Promise<void> {
    const message = toOutboxMessage(row);
    // One variable read when no SDK records spans: no span, no allocation.
    const span = messagingTracer()?.send(message.destination, message.messageId, row.attempts, message.headers);
    if (!span) {
      await this.publishAndFinish(row, message, lease);
      return;
    }
    // The receiver continues the send span's context, not the stored creation context.
    const sent = { ...message, headers: span.inject({ ...message.headers }) };
    await endSpanWith(span, () => this.publishAndFinish(row, sent, lease, span));
  }

  /** Publishes and writes the outcome; returns how it ended (a failed publish's error goes on the span). */
  private async publishAndFinish(row: ClaimedOutboxRow, message: OutboxMessage, lease: Lease, span?: MessageSpan): Promise<SpanOutcome> {
    const started = performance.now();
    const result = await this.publish(message, lease, span);
    const seconds = (performance.now() - started) / 1000;
    // A lost claim changes nothing more; shutdown that gave up leaves the row to reclaim.
    if (!result.ok) span?.recordError(result.error);
    if (lease.lost) return 'lost';
    if (this.abandon.signal.aborted) return 'abandoned';
    lease.release();
    if (!result.ok) return this.fail(row, lease, result, seconds);
    const sent = await this.finishSent(row, seconds);
    // Seen lost by the completion: the lease advisor counts it with the row.
    if (sent === 'lost') lease.markLost(undefined);
    return sent;
  }

  private async publish(message: OutboxMessage, lease: Lease, span?: MessageSpan): Promise<PublishResult> {
    const publisher = this.publishers.get(message.destination);
    if (!publisher) {
      return { ok: false, retryable: true, error: new Error(destinationNotHere(message.destination)) };
    }
    // The signal is made only when the publisher reads it.
    const context = {
      get signal() {
        return lease.signal;
      },
    };
    try {
      // In the send span's context, so that a client instrumentation's spans nest under it.
      await (span ? span.run(() => publisher.publish(message, context)) : publisher.publish(message, context));
      return { ok: true };
    } catch (error) {
      if (error instanceof PublishFailedError) return { ok: false, error, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
      return { ok: false, error, retryable: true };
    }
  }

  private async finishSent(row: ClaimedOutboxRow, seconds: number): Promise<'sent' | 'lost'> {
    if ((await this.completions.complete(this.claimOf(row))) === 'ok') {
      this.metrics.outboxPublishAttempt(row.destination, 'sent', seconds);
      return 'sent';
    }
    // Published, but another owner has the row now and will publish it again (a duplicate with
    // the same message id; docs/concepts/claims-and-leases.md, "Lost claims").
    this.logger.error(outboxMarkLost(row.id, row.messageId), { messageId: row.messageId, rowId: row.id });
    this.countLost(row, 'finish', seconds);
    return 'lost';
  }

  protected countOutcome(row: ClaimedOutboxRow, outcome: RowOutcome, seconds?: number): void {
    if (outcome === 'lost') this.metrics.claimLost('outbox');
    this.metrics.outboxPublishAttempt(row.destination, outcome, seconds);
  }

  protected logFields(row: ClaimedOutboxRow): Record<string, unknown> {
    return { messageId: row.messageId, rowId: row.id, destination: row.destination };
  }
}

