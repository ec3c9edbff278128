import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import { StatementRunner } from '../../database/statement-runner.js';
import { DuplicatePullWorkerError } from '../../shared/errors/duplicate-pull-worker.error.js';
import { InvalidPullWorkerError } from '../../shared/errors/invalid-pull-worker.error.js';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { BacklogSampler } from '../../engine/metrics/backlog-sampler.js';
import { UnknownStreams } from '../../engine/metrics/unknown-streams.js';
import { duplicatePullWorker, pullWorkerNotHost, pullWorkerRequestScoped } from '../../shared/queuebox.messages.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { pullWorkerDecorator } from './pull-worker.decorator.js';
import { PullWorkerHost } from './pull-worker.host.js';
import { PullWorkerPoller } from './pull-worker.poller.js';
import { resolvePullWorkerOptions } from './resolve-pull-worker-options.js';

/**
 * Finds the `@PullWorker` classes at start-up (`onModuleInit`), starts their pollers once the
 * application is up (`onApplicationBootstrap`), and drains them before the DataSource closes
 * (`beforeApplicationShutdown`). An invalid worker fails start-up.
 */
@Injectable()
export class PullWorkerExplorer implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly pollers: PullWorkerPoller[] = [];
  private readonly backlog: BacklogSampler;
  private unsubscribe?: () => void;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly repository: ClaimRepository,
    private readonly metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    private readonly wakeUps: WakeUpHub,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly leaseAdvisor: LeaseAdvisor,
    private readonly events: QueueBoxEvents,
    private readonly schema: SchemaCheck,
    private readonly unknown: UnknownStreams,
  ) {
    this.backlog = new BacklogSampler(
      runner,
      () => dialect.inboxBacklog(),
      () => this.pollers.map((poller) => poller.source),
      (source, pending, age) => metrics.inboxBacklogSample(labels.of(source), pending, age),
    );
  }

  /** The pollers, one per `@PullWorker` class: for health checks and the admin. */
  get workers(): readonly PullWorkerPoller[] {
    return this.pollers;
  }

  onModuleInit(): void {
    const bySource = new Map<string, string[]>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: pullWorkerDecorator.KEY })) {
      const metadata = this.discovery.getMetadataByDecorator(pullWorkerDecorator, wrapper);
      if (!metadata) continue;
      // For factory and value providers the wrapper's metatype is not the decorated class.
      const workerClass = (wrapper.instance?.constructor ?? wrapper.metatype) as { name: string } | undefined;
      const name = workerClass?.name ?? String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        throw new InvalidPullWorkerError(name, pullWorkerRequestScoped(name));
      }
      const host = wrapper.instance as unknown;
      if (!(host instanceof PullWorkerHost) || typeof host.handle !== 'function') {
        throw new InvalidPullWorkerError(name, pullWorkerNotHost(name));
      }
      const worker = resolvePullWorkerOptions(name, metadata, this.options);
      bySource.set(worker.source, [...(bySource.get(worker.source) ?? []), name]);
      this.labels.register(worker.source);
      this.pollers.push(
        new PullWorkerPoller(host, worker, {
          repository: this.repository,
          runner: this.runner,
          claimLockAlways: this.dialect.claimLockAlways,
          metrics: this.metrics,
          label: this.labels.of(worker.source),
          leaseAdvisor: this.leaseAdvisor,
          events: this.events,
          // The first poller samples the backlog of every pulled source (one query for all).
          sampleBacklog:
            this.pollers.length === 0
              ? { every: this.options.workers.metricsIntervalMs, sample: () => this.sampleBacklog() }
              : undefined,
        }),
      );
    }
    for (const [source, names] of bySource) {
      if (names.length > 1) throw new DuplicatePullWorkerError(source, names, duplicatePullWorker(source, names));
    }
  }

  /** Starts the pollers, once QueueBox's tables are ready (startup.waitForMigrations may defer it). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.workers.enabled || this.pollers.length === 0) return;
    await this.schema.whenReady(() => {
      // A new inbox row may be for any source: every poller tries a claim (a cheap, indexed one).
      this.unsubscribe = this.wakeUps.subscribe('inbox', () => this.pollers.forEach((poller) => poller.wake()));
      for (const poller of this.pollers) poller.start();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await Promise.all(this.pollers.map((poller) => poller.stop()));
  }

  /** The backlog gauges of the pulled sources, and the rows of sources this instance does not take (one query). */
  private async sampleBacklog(): Promise<void> {
    this.unknown.sampled('inbox', await this.backlog.sample());
  }
}
