import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import type { Claim } from '../interfaces/claim.interface.js';
import { ClaimRepository } from '../claims/claim.repository.js';
import type { ClaimedInboxRow } from '../claims/claimed-inbox-row.interface.js';
import type { LeaseKeeper } from '../claims/lease-keeper.js';
import type { SqlDialect } from '../dialects/sql-dialect.interface.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import { InvalidMessageError } from '../errors/invalid-message.error.js';
import { InvalidQueueBoxOptionsError } from '../errors/invalid-queuebox-options.error.js';
import type { InboxMessage } from '../interfaces/inbox-message.interface.js';
import type { InboxTransform } from '../interfaces/queuebox-options.interface.js';
import { BacklogSampler } from '../metrics/backlog-sampler.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { insertOutboxRows } from '../outbox/insert-outbox-rows.js';
import { toOutboxRow } from '../outbox/validate-outbox-message.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { claimLost, inboxForwardLost, maxAttemptsWithoutOutcome, transformInvalid, transformNotRegistered } from '../queuebox.messages.js';
import { backoffDelay } from '../runtime/backoff.js';
import { ClaimWorker } from '../runtime/claim-worker.js';
import { errorText } from '../runtime/error-text.js';
import { withMessageSpan } from '../tracing/trace-context.js';
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
    private readonly repository: ClaimRepository,
    private readonly metrics: QueueBoxMetrics,
    private readonly wakeUps: WakeUpHub,
    private readonly moduleRef: ModuleRef,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {
    const relay = options.inbox.relay;
    super({
      name: InboxRelay.name,
      pollIntervalMs: relay.pollIntervalMs,
      batchSize: relay.batchSize,
      concurrency: relay.concurrency,
      shutdownTimeoutMs: relay.shutdownTimeoutMs,
      reclaimEveryMs: relay.claimTimeoutMs / 5,
      sampleEveryMs: options.outbox.metricsIntervalMs,
      onLoopError: () => metrics.loopError('inbox-relay'),
    });
    this.sources = [...relay.routes.keys()];
    this.backlog = new BacklogSampler(
      dataSource,
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
    await this.repository.reclaimExpired('inbox', this.sources);
  }

  protected override sample(): Promise<void> {
    return this.backlog.sample();
  }

  protected claim(count: number): Promise<ClaimedInboxRow[]> {
    return this.repository.claimInbox(this.sources, count, this.options.inbox.relay.claimTimeoutMs);
  }

  /** Forwards one claimed row and finishes it. Never throws: every outcome is logged and counted. */
  protected async process(row: ClaimedInboxRow): Promise<void> {
    const claim: Claim = { component: 'inbox', id: String(row.id), token: row.claim_token, leaseMs: this.options.inbox.relay.claimTimeoutMs };
    const message = toInboxMessage(row);
    try {
      if (message.attempt > this.options.inbox.relay.maxAttempts) {
        await this.finishFailed(claim, message, new Error(maxAttemptsWithoutOutcome()), false);
        return;
      }
      const result = await this.runLeased(
        claim,
        (c) => this.repository.renew(c),
        (lost, cause) => this.claimLost(lost, message, cause),
        (keeper) => withMessageSpan(`relay ${message.source}`, message.headers, { 'messaging.source.name': message.source }, () => this.forward(claim, message, keeper)),
      );
      if (result.outcome === 'left') return;
      if (result.outcome === 'failed') {
        // An outbox message the transform shaped wrongly will not get better by waiting.
        await this.finishFailed(claim, message, result.error, !(result.error instanceof InvalidMessageError));
        return;
      }
      // The relay claims only its routed sources: a bounded label set.
      this.metrics.inboxRelayed(message.source);
    } catch (error) {
      this.logger.error({ message: 'inbox relay finishing write failed; the row will be reclaimed after its lease', rowId: claim.id, error: errorText(error) });
    } finally {
      if (message.key !== null) this.wake();
    }
  }

  /**
   * Shapes the outbox message (outside any transaction: a transform may be slow), then writes the
   * fenced mark and the outbox row in one transaction. The mark goes first: a lost claim then
   * costs no insert, and the row lock it takes keeps every reclaimer off the row until commit.
   */
  private async forward(claim: Claim, message: InboxMessage, keeper: LeaseKeeper): Promise<void> {
    const route = this.options.inbox.relay.routes.get(message.source)!;
    const shaped = (await this.transforms.get(message.source)?.transform(message)) ?? {};
    const hasPayload = Object.prototype.hasOwnProperty.call(shaped, 'payload');
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
    );
    // The renewal must not race the mark: it would wait on the mark's row lock, then report a loss.
    await keeper.stop();
    if (keeper.lost) throw keeper.signal.reason;
    await this.dataSource.transaction(async (manager) => {
      if ((await this.repository.complete(claim, { manager })) === 'lost') {
        throw new ClaimLostError('inbox', claim.id, claimLost('inbox', claim.id));
      }
      await insertOutboxRows(this.dataSource, this.dialect, this.wakeUps, [outboxRow], manager);
    });
  }

  private async finishFailed(claim: Claim, message: InboxMessage, error: unknown, retryable: boolean): Promise<void> {
    const { maxAttempts, backoff } = this.options.inbox.relay;
    const dead = !retryable || message.attempt >= maxAttempts;
    const text = errorText(error);
    const written = dead ? await this.repository.deadLetter(claim, text) : await this.repository.retry(claim, backoffDelay(message.attempt, backoff), text);
    const source = message.source;
    if (written === 'lost') {
      this.logger.warn({ message: inboxForwardLost(claim.id), rowId: claim.id, source: message.source });
      this.metrics.claimLost('inbox');
      this.metrics.inboxRelayFailed(source, 'lost');
      return;
    }
    this.metrics.inboxRelayFailed(source, dead ? 'dead' : 'retried');
    const log = { message: dead ? 'inbox message dead-lettered by the relay' : 'inbox forward failed; retrying', rowId: claim.id, source: message.source, attempt: message.attempt, error: text };
    if (dead) this.logger.error(log);
    else this.logger.warn(log);
  }

  private claimLost(claim: Claim, message: InboxMessage, cause: unknown): void {
    this.logger.warn({ message: inboxForwardLost(claim.id), rowId: claim.id, source: message.source, error: errorText(cause) });
    this.metrics.claimLost('inbox');
    this.metrics.inboxRelayFailed(message.source, 'lost');
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
