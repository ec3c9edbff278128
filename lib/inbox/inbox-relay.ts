import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ClaimRepository } from '../claims/claim.repository.js';
import type { Lease } from '../claims/lease-group.js';
import { StatementRunner } from '../claims/statement-runner.js';
import type { ClaimRequest, SqlDialect } from '../dialects/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimResult } from '../dialects/statement-results.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import { InvalidMessageError } from '../errors/invalid-message.error.js';
import { InvalidQueueBoxOptionsError } from '../errors/invalid-queuebox-options.error.js';
import { QueueBoxEvents } from '../events/queuebox-events.service.js';
import { LeaseAdvisor } from '../leases/lease-advisor.js';
import type { InboxMessage } from '../interfaces/inbox-message.interface.js';
import type { InboxTransform } from '../interfaces/queuebox-options.interface.js';
import { BacklogSampler } from '../metrics/backlog-sampler.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { insertOutboxRows } from '../outbox/insert-outbox-rows.js';
import { toOutboxRow } from '../outbox/validate-outbox-message.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { claimLost, transformInvalid, transformNotRegistered } from '../queuebox.messages.js';
import { ClaimWorker, type RowOutcome } from '../runtime/claim-worker.js';
import { CreateSpans } from '../tracing/create-spans.js';
import type { SpanOutcome } from '../tracing/messaging-attributes.js';
import { endSpanWith, type MessageSpan, messagingTracer } from '../tracing/messaging-tracer.js';
import { WakeUpHub } from '../wakeup/wake-up.hub.js';
import { toInboxMessage } from './inbox-message.mapper.js';

/**
 * Forwards inbox rows of the routed sources into the outbox, in order per aggregate. Each
 * forward writes the outbox row and the fenced `processed` mark in one transaction; a lost
 * claim rolls both back (docs/concepts/claims-and-leases.md, "Lost claims"). Claims take the relay
 * claim lock; leases are renewed every third of `inbox.relay.claimTimeoutMs`; expired claims are
 * reclaimed at most once per a fifth of it.
 */
@Injectable()
export class InboxRelay extends ClaimWorker<ClaimedInboxRow> implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly transforms = new Map<string, InboxTransform>();
  private readonly backlog: BacklogSampler;
  private readonly sources: string[];
  private unsubscribe?: () => void;

  constructor(
    repository: ClaimRepository,
    private readonly metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    private readonly moduleRef: ModuleRef,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly runner: StatementRunner,
    leaseAdvisor: LeaseAdvisor,
    private readonly events: QueueBoxEvents,
  ) {
    const relay = options.inbox.relay;
    super(
      {
      name: InboxRelay.name,
      component: 'inbox',
      noun: 'inbox message (relay)',
      maxAttempts: relay.maxAttempts,
      backoff: relay.backoff,
      leaseMs: relay.claimTimeoutMs,
      streams: [...relay.routes.keys()],
      pollIntervalMs: relay.pollIntervalMs,
      batchSize: relay.batchSize,
      concurrency: relay.concurrency,
      shutdownTimeoutMs: relay.shutdownTimeoutMs,
      reclaimEveryMs: relay.claimTimeoutMs / 5,
      sampleEveryMs: options.outbox.metricsIntervalMs,
      onLoopError: () => metrics.loopError('inbox-relay'),
      onLoopTick: metrics.loopTicker('inbox-relay'),
      leaseAdvisor,
      events,
      },
      repository,
    );
    this.sources = [...relay.routes.keys()];
    this.backlog = new BacklogSampler(
      runner,
      () => dialect.inboxBacklog(),
      () => this.sources,
      (source, pending, age) => metrics.inboxBacklogSample(source, pending, age),
    );
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

  onApplicationBootstrap(): void {
    if (!this.options.workersEnabled || this.sources.length === 0) return;
    this.unsubscribe = this.wakeUps.subscribe('inbox', () => this.wake());
    this.startLoop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.drain();
  }

  protected describe(): string {
    const routes = [...this.options.inbox.relay.routes].map(([source, route]) => `${source} → ${route.destination}`);
    return `routes ${routes.join(', ')}, lease ${this.options.inbox.relay.claimTimeoutMs} ms`;
  }

  protected override async reclaim(): Promise<void> {
    const count = await this.repository.reclaimExpired('inbox', this.sources);
    if (count > 0) this.events.emit('rows.reclaimed', { table: 'inbox', count });
  }

  protected override sample(): Promise<void> {
    return this.backlog.sample();
  }

  protected claim(request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.repository.claimInbox(this.sources, request);
  }

  /** Forwards one claimed row and finishes it, in a `process` span when an SDK records spans. */
  protected async process(row: ClaimedInboxRow, lease: Lease): Promise<void> {
    const message = toInboxMessage(row);
    const span = messagingTracer()?.process('relay', message.source, message.idempotencyKey, row.attempts, message.headers);
    if (!span) await this.relay(row, message, lease);
    else await endSpanWith(span, () => this.relay(row, message, lease, span));
  }

  private async relay(row: ClaimedInboxRow, message: InboxMessage, lease: Lease, span?: MessageSpan): Promise<SpanOutcome> {
    const result = await this.runLeased(lease, span ? () => span.run(() => this.forward(message, lease)) : () => this.forward(message, lease));
    if (result.outcome === 'left') return lease.lost ? 'lost' : 'abandoned';
    if (result.outcome === 'failed') {
      span?.recordError(result.error);
      // An outbox message the transform shaped wrongly will not get better by waiting.
      return this.fail(row, lease, { error: result.error, retryable: !(result.error instanceof InvalidMessageError) });
    }
    // The relay claims only its routed sources: a bounded label set.
    this.metrics.inboxRelayed(message.source);
    if (this.events.wants('relay.forwarded')) this.events.emit('relay.forwarded', { id: message.id, source: message.source, idempotencyKey: message.idempotencyKey });
    this.adopt(result.value);
    return 'processed';
  }

  /**
   * Shapes the outbox message (outside any transaction: a transform may be slow), then writes the
   * fenced mark and the outbox row in one transaction. The mark goes first: a lost claim then
   * costs no insert, and the row lock it takes keeps every reclaimer off the row until commit.
   * The mark hands the key on to its next row, which comes back once the transaction committed.
   */
  private async forward(message: InboxMessage, lease: Lease): Promise<ClaimedInboxRow[]> {
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
      lease.release();
      if (lease.lost) throw lease.signal.reason;
      const claimed = await this.runner.withManager(async (manager) => {
        const { lost, claimed } = await this.repository.completeMany<ClaimedInboxRow>([lease.claim], this.handOffLeaseMs, { manager });
        if (lost.length > 0) throw new ClaimLostError('inbox', lease.claim.id, claimLost('inbox', lease.claim.id));
        await insertOutboxRows(this.runner, this.dialect, this.wakeUps, [outboxRow], manager);
        return claimed;
      });
      spans?.endAll();
      return claimed;
    } catch (error) {
      spans?.endAll(error);
      throw error;
    }
  }

  protected streamOf(row: ClaimedInboxRow): string {
    return row.source;
  }

  protected countOutcome(row: ClaimedInboxRow, outcome: RowOutcome): void {
    if (outcome === 'lost') this.metrics.claimLost('inbox');
    this.metrics.inboxRelayFailed(row.source, outcome);
  }

  protected logFields(row: ClaimedInboxRow): Record<string, unknown> {
    return { rowId: row.id, source: row.source };
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
