import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import { StatementRunner } from '../../database/statement-runner.js';
import type { ClaimRequest, SqlDialect } from '../../database/sql-dialect.interface.js';
import type { ClaimedOutboxRow, ClaimResult } from '../../database/statement-results.js';
import { PublishFailedError } from '../../shared/errors/publish-failed.error.js';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { BacklogSampler } from '../../engine/metrics/backlog-sampler.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import { UnknownStreams } from '../../engine/metrics/unknown-streams.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { PublisherRegistry } from '../publishers/publisher-registry.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { destinationNotHere } from '../../shared/queuebox.messages.js';
import type { ReportedRow } from '../../engine/claim-outcomes.js';
import { claimWorkerSettings } from '../../engine/loop-settings.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import type { ClaimRole, RowFailure, RowJob } from '../../engine/claim-role.interface.js';
import { ClaimWorker, type ClaimWorkerStatus } from '../../engine/claim-worker.js';
import type { MessageSpan } from '../../shared/tracing/message-span.interface.js';
import { messagingTracer } from '../../shared/tracing/messaging-tracer.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { DestinationLabels } from '../../engine/metrics/destination-labels.js';
import { toOutboxMessage } from './outbox-message.mapper.js';

/** A claimed row whose destination this instance does not have (a defence: its claims take only its own). */
class DestinationNotHereError extends Error {}

/**
 * Claims outbox rows of its configured destinations (others stay pending for the instances that have
 * them), publishes each with bounded concurrency and finishes it with a fenced write (`sent`, retry,
 * or `dead`), on the shared claim worker.
 */
@Injectable()
export class OutboxPoller implements ClaimRole<ClaimedOutboxRow>, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly worker: ClaimWorker<ClaimedOutboxRow>;
  private readonly backlog: BacklogSampler;
  private readonly destinations: readonly string[];
  private unsubscribe?: () => void;

  constructor(
    private readonly repository: ClaimRepository,
    private readonly publishers: PublisherRegistry,
    private readonly metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    leaseAdvisor: LeaseAdvisor,
    private readonly events: QueueBoxEvents,
    private readonly schema: SchemaCheck,
    private readonly labels: DestinationLabels,
    private readonly unknown: UnknownStreams,
  ) {
    const outbox = options.outbox;
    this.destinations = publishers.names();
    this.worker = new ClaimWorker(
      claimWorkerSettings(CLAIMERS.outbox, outbox, {
        name: OutboxPoller.name,
        asyncMarks: outbox.asyncMarks,
        sampleEveryMs: options.workers.metricsIntervalMs,
        metrics,
      }),
      repository,
      this,
      { metrics, events, leaseAdvisor },
    );
    this.backlog = new BacklogSampler(
      runner,
      () => dialect.outboxBacklog(),
      () => publishers.names(),
      (destination, pending, age) => metrics.outboxBacklogSample(destination, pending, age),
    );
  }

  get status(): ClaimWorkerStatus {
    return this.worker.status;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.workers.enabled) return;
    await this.schema.whenReady(() => {
      this.unsubscribe = this.wakeUps.subscribe('outbox', () => this.worker.wake());
      this.worker.start();
    });
  }

  /** Drains up to `outbox.shutdownTimeoutMs`; runs before `@nestjs/typeorm` closes the DataSource. */
  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.worker.stop();
  }

  describe(): string {
    const { leaseMs, claimLock } = this.options.outbox;
    const lock = claimLock || this.dialect.claimLockAlways ? ', claim lock' : '';
    return `destinations ${this.publishers.names().join(', ') || 'none'}, lease ${leaseMs} ms${lock}`;
  }

  async reclaim(): Promise<void> {
    const count = await this.repository.reclaimExpired('outbox');
    this.metrics.outboxMessagesReclaimed(count);
    if (count > 0) this.events.emit('rows.reclaimed', { table: 'outbox', count });
  }

  async sample(): Promise<void> {
    this.unknown.sampled('outbox', await this.backlog.sample());
  }

  claim(request: ClaimRequest): Promise<ClaimResult<ClaimedOutboxRow>> {
    return this.repository.claimOutbox(this.destinations, request, {
      lock: this.options.outbox.claimLock,
      asyncCommit: this.options.outbox.asyncMarks,
    });
  }

  stream(row: ClaimedOutboxRow): string {
    // The stream labels metrics: bounded, as sources are (`_other` for a destination not configured here).
    return this.labels.of(row.destination);
  }

  identify(row: ClaimedOutboxRow): ReportedRow {
    return {
      id: row.id,
      stream: this.stream(row),
      fields: { messageId: row.messageId, rowId: row.id, destination: row.destination },
    };
  }

  openSpan(row: ClaimedOutboxRow): MessageSpan | undefined {
    // One variable read when no SDK records spans: no span, no allocation.
    return messagingTracer()?.send(row.destination, row.messageId, row.attempts, row.headers);
  }

  /** The worker marks a published row `sent` (batched) once `work` resolved. */
  readonly finishAfterWork = true;

  /**
   * Publishes one claimed row; the worker then marks it `sent` (batched). A publish whose mark loses
   * the claim is published again by the new owner, with the same message id. Not async, so that a
   * row costs no frame here; it answers as an async function would (a throw is a rejection).
   */
  work(row: ClaimedOutboxRow, job: RowJob): Promise<void> {
    try {
      const message = toOutboxMessage(row);
      const publisher = this.publishers.get(message.destination);
      if (!publisher) throw new DestinationNotHereError(destinationNotHere(message.destination));
      // The receiver continues the send span's context, not the stored creation context.
      const sent = job.span ? { ...message, headers: job.span.inject({ ...message.headers }) } : message;
      // The signal is made only when the publisher reads it. `Promise.resolve` returns a native promise as is.
      return Promise.resolve(
        publisher.publish(sent, {
          get signal() {
            return job.signal;
          },
        }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  failureOf(error: unknown): RowFailure {
    if (error instanceof PublishFailedError)
      return { error, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
    // Not the message's failure: it goes back to pending for an instance that has its destination, never dead.
    if (error instanceof DestinationNotHereError) return { error, retryable: true, giveBack: true };
    return { error, retryable: true };
  }
}
