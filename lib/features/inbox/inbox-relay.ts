import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import { StatementRunner } from '../../database/statement-runner.js';
import type { ClaimRequest, SqlDialect } from '../../database/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimResult } from '../../database/statement-results.js';
import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import type { InboxTransform } from '../../shared/interfaces/queuebox-options.interface.js';
import { BacklogSampler } from '../../engine/metrics/backlog-sampler.js';
import { UnknownStreams } from '../../engine/metrics/unknown-streams.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { insertOutboxRows } from '../outbox/insert-outbox-rows.js';
import { toOutboxRow } from '../outbox/validate-outbox-message.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { transformInvalid, transformNotRegistered } from '../../shared/queuebox.messages.js';
import type { ReportedRow } from '../../engine/claim-outcomes.js';
import { claimWorkerSettings } from '../../engine/loop-settings.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import type { ClaimRole, RowFailure, RowJob } from '../../engine/claim-role.interface.js';
import { ClaimWorker, type ClaimWorkerStatus } from '../../engine/claim-worker.js';
import { CreateSpans } from '../../shared/tracing/create-spans.js';
import type { MessageSpan } from '../../shared/tracing/message-span.interface.js';
import { messagingTracer } from '../../shared/tracing/messaging-tracer.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { toInboxMessage } from './inbox-message.mapper.js';

/**
 * Forwards inbox rows of the routed sources into the outbox, in order per aggregate. Each
 * forward writes the outbox row and the fenced `processed` mark in one transaction; a lost
 * claim rolls both back (docs/concepts/claims-and-leases.md, "Lost claims"). Claims take the relay
 * claim lock; leases are renewed every third of `inbox.relay.claimTimeoutMs`; expired claims are
 * reclaimed at most once per a fifth of it.
 */
@Injectable()
export class InboxRelay
  implements ClaimRole<ClaimedInboxRow>, OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly worker: ClaimWorker<ClaimedInboxRow>;
  private readonly transforms = new Map<string, InboxTransform>();
  private readonly backlog: BacklogSampler;
  private readonly sources: string[];
  private unsubscribe?: () => void;

  constructor(
    private readonly repository: ClaimRepository,
    metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    private readonly moduleRef: ModuleRef,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly runner: StatementRunner,
    leaseAdvisor: LeaseAdvisor,
    private readonly events: QueueBoxEvents,
    private readonly schema: SchemaCheck,
    private readonly unknown: UnknownStreams,
  ) {
    const relay = options.inbox.relay;
    this.sources = [...relay.routes.keys()];
    this.worker = new ClaimWorker(
      claimWorkerSettings(CLAIMERS.relay, relay, {
        name: InboxRelay.name,
        streams: this.sources,
        sampleEveryMs: options.workers.metricsIntervalMs,
        metrics,
      }),
      repository,
      this,
      { metrics, events, leaseAdvisor },
    );
    this.backlog = new BacklogSampler(
      runner,
      () => dialect.inboxBacklog(),
      () => this.sources,
      (source, pending, age) => metrics.inboxBacklogSample(source, pending, age),
    );
  }

  /** The relay's loop, as health and the admin read it. */
  get status(): ClaimWorkerStatus {
    return this.worker.status;
  }

  onModuleInit(): void {
    for (const [source, route] of this.options.inbox.relay.routes) {
      if (route.transform === undefined) continue;
      const path = `inbox.relay.routes.${source}.transform`;
      let transform: InboxTransform | undefined;
      try {
        transform = this.moduleRef.get(route.transform, { strict: false });
      } catch {
        throw new InvalidQueueBoxOptionsError(path, transformNotRegistered(path));
      }
      if (typeof transform?.transform !== 'function') {
        throw new InvalidQueueBoxOptionsError(path, transformInvalid(path));
      }
      this.transforms.set(source, transform);
    }
  }

  /** Starts the loop, once QueueBox's tables are ready (startup.waitForMigrations may defer it). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.workers.enabled || this.sources.length === 0) return;
    await this.schema.whenReady(() => {
      this.unsubscribe = this.wakeUps.subscribe('inbox', () => this.worker.wake());
      this.worker.start();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.worker.stop();
  }

  describe(): string {
    const routes = [...this.options.inbox.relay.routes].map(([source, route]) => `${source} → ${route.destination}`);
    return `routes ${routes.join(', ')}, lease ${this.options.inbox.relay.leaseMs} ms`;
  }

  async reclaim(): Promise<void> {
    const count = await this.repository.reclaimExpired('inbox', this.sources);
    if (count > 0) this.events.emit('rows.reclaimed', { table: 'inbox', count });
  }

  /** The backlog gauges of the routed sources, and the rows of sources this instance does not take (one query). */
  async sample(): Promise<void> {
    this.unknown.sampled('inbox', await this.backlog.sample());
  }

  claim(request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.repository.claimInbox(this.sources, request);
  }

  stream(row: ClaimedInboxRow): string {
    // The relay claims only its routed sources: a bounded label set.
    return row.source;
  }

  identify(row: ClaimedInboxRow): ReportedRow {
    return { id: row.id, stream: this.stream(row), fields: { rowId: row.id, source: row.source } };
  }

  openSpan(row: ClaimedInboxRow): MessageSpan | undefined {
    return messagingTracer()?.process('relay', row.source, row.idempotencyKey, row.attempts, row.headers);
  }

  /** An outbox message the transform shaped wrongly will not get better by waiting. */
  failureOf(error: unknown): RowFailure {
    return { error, retryable: !(error instanceof InvalidMessageError) };
  }

  succeeded(row: ClaimedInboxRow): void {
    if (this.events.wants('relay.forwarded'))
      this.events.emit('relay.forwarded', { id: row.id, source: row.source, idempotencyKey: row.idempotencyKey });
  }

  /**
   * Shapes the outbox message (outside any transaction: a transform may be slow), then writes the
   * fenced mark and the outbox row in one transaction. The mark goes first: a lost claim then
   * costs no insert, and the row lock it takes keeps every reclaimer off the row until commit.
   */
  async work(row: ClaimedInboxRow, job: RowJob): Promise<void> {
    const message = toInboxMessage(row);
    const route = this.options.inbox.relay.routes.get(message.source)!;
    const shaped = (await this.transforms.get(message.source)?.transform(message)) ?? {};
    const hasPayload = Object.prototype.hasOwnProperty.call(shaped, 'payload');
    const tracer = messagingTracer();
    const spans = tracer && new CreateSpans(tracer);
    const outboxRow = toOutboxRow(
      {
        destination: shaped.destination ?? route.destination,
        key: shaped.key !== undefined ? shaped.key : message.key,
        headers: shaped.headers ?? withoutTraceContext(message.headers),
        payload: shaped.payload,
      },
      this.options,
      undefined,
      hasPayload ? undefined : message.payloadText,
      spans,
    );
    try {
      await this.runner.withManager(async (manager) => {
        await job.finish(manager);
        await insertOutboxRows(this.runner, this.dialect, this.wakeUps, [outboxRow], manager);
      });
      spans?.endAll();
    } catch (error) {
      spans?.endAll(error);
      throw error;
    }
  }
}

/**
 * The stored headers minus the trace context: the forward's own span context is injected
 * instead, so the outbox message continues the trace through the relay.
 */
function withoutTraceContext(headers: Record<string, string>): Record<string, string> {
  const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = headers;
  return rest;
}
