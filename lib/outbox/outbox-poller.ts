import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import type { Claim } from '../interfaces/claim.interface.js';
import { type ClaimResult, ClaimRepository } from '../claims/claim.repository.js';
import type { Lease } from '../claims/lease-group.js';
import type { ClaimedOutboxRow } from '../claims/claimed-outbox-row.interface.js';
import type { ClaimRequest, SqlDialect } from '../dialects/sql-dialect.interface.js';
import { PublishFailedError } from '../errors/publish-failed.error.js';
import type { OutboxMessage } from '../interfaces/outbox-message.interface.js';
import { BacklogSampler } from '../metrics/backlog-sampler.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { PublisherRegistry } from '../publishers/publisher-registry.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { destinationNotHere, maxAttemptsWithoutOutcome, outboxMarkLost, outboxWriteLost } from '../queuebox.messages.js';
import { backoffDelay } from '../runtime/backoff.js';
import { ClaimWorker } from '../runtime/claim-worker.js';
import { errorText } from '../runtime/error-text.js';
import { withMessageSpan } from '../tracing/trace-context.js';
import { WakeUpHub } from '../wakeup/wake-up.hub.js';
import { OutboxCompletionBatcher } from './outbox-completion-batcher.js';
import { toOutboxMessage } from './outbox-message.mapper.js';

/** How one publish ended, before its fenced write. */
type PublishResult = { ok: true } | { ok: false; error: unknown; retryable: boolean; retryAfterMs?: number };

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
    private readonly repository: ClaimRepository,
    private readonly publishers: PublisherRegistry,
    private readonly metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    @Inject(QUEUEBOX_DATA_SOURCE) dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) dialect: SqlDialect,
  ) {
    const outbox = options.outbox;
    super({
      name: OutboxPoller.name,
      component: 'outbox',
      leaseMs: outbox.claimTimeoutMs,
      pollIntervalMs: outbox.pollIntervalMs,
      batchSize: outbox.batchSize,
      concurrency: outbox.concurrency,
      shutdownTimeoutMs: outbox.shutdownTimeoutMs,
      reclaimEveryMs: outbox.claimTimeoutMs / 5,
      sampleEveryMs: outbox.metricsIntervalMs,
      onLoopError: () => metrics.loopError('outbox'),
    });
    // A key with a backlog flows from one completion to the next: the mark of a row claims the
    // key's next row in the same statement (not while shutting down: nothing new is taken then).
    this.completions = new OutboxCompletionBatcher(
      repository,
      () => (this.claiming ? outbox.claimTimeoutMs : undefined),
      (rows) => this.adoptHandedOn(rows),
    );
    this.backlog = new BacklogSampler(
      dataSource,
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
    return `destinations ${this.publishers.names().join(', ') || 'none'}, lease ${claimTimeoutMs} ms${claimLock ? ', claim lock' : ''}`;
  }

  protected override async reclaim(): Promise<void> {
    this.metrics.outboxMessagesReclaimed(await this.repository.reclaimExpired('outbox'));
  }

  protected override sample(): Promise<void> {
    return this.backlog.sample();
  }

  protected async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedOutboxRow>> {
    const result = await this.repository.claimOutbox(request, { lock: this.options.outbox.claimLock });
    this.metrics.outboxOrderInversions(countInverted(result.rows));
    return result;
  }

  protected renewMany(claims: readonly Claim[]): Promise<Claim[]> {
    return this.repository.renewMany(claims);
  }

  private adoptHandedOn(rows: readonly ClaimedOutboxRow[]): void {
    this.metrics.outboxOrderInversions(countInverted(rows));
    this.adopt(rows);
  }

  /** Publishes one claimed row and finishes it. Never throws: every outcome is logged and counted. */
  protected async process(row: ClaimedOutboxRow, lease: Lease): Promise<void> {
    const claim = lease.claim;
    const message = toOutboxMessage(row);
    lease.detail = message;
    try {
      if (row.attempts > this.options.outbox.maxAttempts) {
        // Claimed more often than allowed without an outcome (its workers crashed or lost it).
        lease.release();
        await this.finishFailed(claim, message, { ok: false, error: new Error(maxAttemptsWithoutOutcome()), retryable: false });
        return;
      }
      const started = performance.now();
      const result = await this.publish(message, lease);
      const seconds = (performance.now() - started) / 1000;
      // A lost claim changes nothing more; shutdown that gave up leaves the row to reclaim.
      if (lease.lost || this.abandon.signal.aborted) return;
      lease.release();
      if (result.ok) await this.finishSent(claim, message, seconds);
      else await this.finishFailed(claim, message, result, seconds);
    } catch (error) {
      // A database failure of the finishing write: the row stays processing and is reclaimed.
      this.logger.error({ message: 'outbox finishing write failed; the row will be reclaimed after its lease', messageId: message.messageId, rowId: claim.id, error: errorText(error) });
    }
  }

  private async publish(message: OutboxMessage, lease: Lease): Promise<PublishResult> {
    const publisher = this.publishers.get(message.destination);
    if (!publisher) {
      return { ok: false, retryable: true, error: new Error(destinationNotHere(message.destination)) };
    }
    try {
      await withMessageSpan(`publish ${message.destination}`, message.headers, { 'messaging.message.id': message.messageId, 'messaging.destination.name': message.destination }, () =>
        // The signal is made only when the publisher reads it.
        publisher.publish(message, {
          get signal() {
            return lease.signal;
          },
        }),
      );
      return { ok: true };
    } catch (error) {
      if (error instanceof PublishFailedError) return { ok: false, error, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
      return { ok: false, error, retryable: true };
    }
  }

  private async finishSent(claim: Claim, message: OutboxMessage, seconds: number): Promise<void> {
    if ((await this.completions.complete(claim)) === 'ok') {
      this.metrics.outboxPublishAttempt(message.destination, 'sent', seconds);
      return;
    }
    // Published, but another owner has the row now and will publish it again (a duplicate with
    // the same message id; docs/concepts/claims-and-leases.md, "Lost claims").
    this.logger.error({ message: outboxMarkLost(claim.id, message.messageId), messageId: message.messageId, rowId: claim.id });
    this.metrics.claimLost('outbox');
    this.metrics.outboxPublishAttempt(message.destination, 'lost', seconds);
  }

  private async finishFailed(claim: Claim, message: OutboxMessage, result: Extract<PublishResult, { ok: false }>, seconds?: number): Promise<void> {
    const { maxAttempts, backoff } = this.options.outbox;
    const error = errorText(result.error);
    const dead = !result.retryable || message.attempt >= maxAttempts;
    const written = dead
      ? await this.repository.deadLetter(claim, error)
      : await this.repository.retry(claim, Math.min(backoff.maxDelayMs, Math.max(backoffDelay(message.attempt, backoff), result.retryAfterMs ?? 0)), error);
    if (written === 'lost') {
      this.logger.warn({ message: outboxWriteLost(dead ? 'dead-letter' : 'retry', claim.id, message.messageId), messageId: message.messageId, rowId: claim.id });
      this.metrics.claimLost('outbox');
      this.metrics.outboxPublishAttempt(message.destination, 'lost', seconds);
      return;
    }
    this.metrics.outboxPublishAttempt(message.destination, dead ? 'dead' : 'retried', seconds);
    // A dead row is finished: the next row of its key may be claimable now.
    if (dead && message.key !== null) this.wake();
    const log = { message: dead ? 'outbox message dead-lettered' : 'outbox publish failed; retrying', messageId: message.messageId, rowId: claim.id, destination: message.destination, attempt: message.attempt, error };
    if (dead) this.logger.error(log);
    else this.logger.warn(log);
  }

  protected claimLost(lease: Lease, cause: unknown): void {
    const message = lease.detail as OutboxMessage | undefined;
    this.logger.warn({ message: 'outbox claim lost while publishing; the publish was aborted and the row is left to its new owner', messageId: message?.messageId, rowId: lease.claim.id, error: errorText(cause) });
    this.metrics.claimLost('outbox');
    if (message) this.metrics.outboxPublishAttempt(message.destination, 'lost');
  }

}

/** Claimed rows flagged as late commits (order inversions). */
function countInverted(rows: readonly { inverted?: boolean | null }[]): number {
  return rows.filter((row) => row.inverted === true).length;
}
