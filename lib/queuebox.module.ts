import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { ClaimRepository } from './claims/claim.repository.js';
import { DeadLetterRepository } from './claims/dead-letter.repository.js';
import { InboxRelay } from './inbox/inbox-relay.js';
import { InboxService } from './inbox/inbox.service.js';
import { SourceLabels } from './inbox/source-labels.js';
import { resolveDialect } from './dialects/resolve-dialect.js';
import type { QueueBoxModuleOptions } from './interfaces/queuebox-options.interface.js';
import { QueueBoxMetrics } from './metrics/queuebox-metrics.service.js';
import { queueBoxMetricProviders } from './metrics/queuebox.metrics.js';
import { resolveOptions } from './options/resolve-options.js';
import type { ResolvedQueueBoxOptions } from './options/resolved-options.interface.js';
import { OutboxPoller } from './outbox/outbox-poller.js';
import { OutboxService } from './outbox/outbox.service.js';
import { PublisherRegistry } from './publishers/publisher-registry.js';
import { PullWorkerExplorer } from './pull/pull-worker.explorer.js';
import { PullService } from './pull/pull.service.js';
import { RetentionSweeper } from './retention/retention-sweeper.js';
import { ConfigurableModuleClass } from './queuebox.module-definition.js';
import {
  QUEUEBOX_DATA_SOURCE,
  QUEUEBOX_MODULE_OPTIONS,
  QUEUEBOX_RESOLVED_OPTIONS,
  QUEUEBOX_SQL_DIALECT,
} from './queuebox.constants.js';
import { WakeUpHub } from './wakeup/wake-up.hub.js';

/**
 * QueueBox: a transactional outbox, an idempotent inbox with its relay, and pull workers, on the
 * application's TypeORM DataSource.
 *
 * ```ts
 * QueueBoxModule.forRoot({ destinations: { billing: { type: 'http', url: 'https://billing/hooks' } } })
 * ```
 * Call `app.enableShutdownHooks()` so that in-flight publishes drain on SIGTERM.
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      // Defaults and validation in one place for forRoot and forRootAsync: a bad option fails
      // bootstrap with InvalidQueueBoxOptionsError naming it.
      provide: QUEUEBOX_RESOLVED_OPTIONS,
      useFactory: (options: QueueBoxModuleOptions) => resolveOptions(options),
      inject: [QUEUEBOX_MODULE_OPTIONS],
    },
    {
      provide: QUEUEBOX_SQL_DIALECT,
      useFactory: (dataSource: DataSource, options: ResolvedQueueBoxOptions) => resolveDialect(dataSource, options.tables),
      inject: [QUEUEBOX_DATA_SOURCE, QUEUEBOX_RESOLVED_OPTIONS],
    },
    ...queueBoxMetricProviders,
    QueueBoxMetrics,
    ClaimRepository,
    DeadLetterRepository,
    WakeUpHub,
    PublisherRegistry,
    OutboxService,
    OutboxPoller,
    SourceLabels,
    InboxService,
    InboxRelay,
    PullService,
    PullWorkerExplorer,
    RetentionSweeper,
  ],
  exports: [OutboxService, InboxService, PullService, QUEUEBOX_RESOLVED_OPTIONS, OutboxPoller, InboxRelay, PullWorkerExplorer],
})
export class QueueBoxModule extends ConfigurableModuleClass {}
