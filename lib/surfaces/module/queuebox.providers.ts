import { Logger, type Provider } from '@nestjs/common';
import { QueueBoxAdmin } from '../admin/queuebox-admin.service.js';
import { DeadLetterService } from '../../features/dead-letters/dead-letter.service.js';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { StatementRunner } from '../../database/statement-runner.js';
import { resolveDialect } from '../../database/dialects/resolve-dialect.js';
import { adaptToPooling } from '../../database/adapt-to-pooling.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { InboxRelay } from '../../features/inbox/inbox-relay.js';
import { InboxService } from '../../features/inbox/inbox.service.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';
import type { QueueBoxModuleOptions } from '../../shared/interfaces/queuebox-options.interface.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import { UnknownStreams } from '../../engine/metrics/unknown-streams.js';
import { queueBoxMetricProviders } from '../../engine/metrics/queuebox.metrics.js';
import { resolveOptions } from '../../config/options/resolve-options.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { DestinationLabels } from '../../engine/metrics/destination-labels.js';
import { OutboxPoller } from '../../features/outbox/outbox-poller.js';
import { OutboxService } from '../../features/outbox/outbox.service.js';
import { PublisherRegistry } from '../../features/publishers/publisher-registry.js';
import { PullWorkerExplorer } from '../../features/pull/pull-worker.explorer.js';
import { PullService } from '../../features/pull/pull.service.js';
import {
  QUEUEBOX_DATA_SOURCE,
  QUEUEBOX_INTAKE_PATH,
  QUEUEBOX_MODULE_OPTIONS,
  QUEUEBOX_RESOLVED_OPTIONS,
  QUEUEBOX_SQL_DIALECT,
} from '../../shared/queuebox.constants.js';
import { dataSourceMissing } from '../../shared/queuebox.messages.js';
import { RetentionSweeper } from '../../features/retention/retention-sweeper.js';
import { DatabaseCheck } from '../../database/database-check.js';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import { TracingProbe } from '../../shared/tracing/tracing-probe.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';

/**
 * Every provider of one QueueBox instance, listed once. They belong to the dynamic module that
 * `forRoot`/`forRootAsync` returns, not to the `@Module` class: a feature module that imports
 * the bare `QueueBoxModule` class then gets an empty module instead of a second, unconfigured
 * QueueBox.
 */
export function queueBoxProviders(dataSourceName: string | undefined): Provider[] {
  return [
    {
      // Defaults and validation in one place for forRoot and forRootAsync: a bad option fails
      // bootstrap with InvalidQueueBoxOptionsError naming it; a deprecated name is a warning, once.
      provide: QUEUEBOX_RESOLVED_OPTIONS,
      useFactory: (options: QueueBoxModuleOptions, intakePath?: string) => {
        const resolved = resolveOptions(options, { intake: intakePath !== undefined });
        for (const deprecation of resolved.deprecations) new Logger('QueueBox').warn(deprecation);
        return resolved;
      },
      inject: [QUEUEBOX_MODULE_OPTIONS, { token: QUEUEBOX_INTAKE_PATH, optional: true }],
    },
    {
      // The application's DataSource, through @nestjs/typeorm's public token: QueueBox never
      // opens a connection of its own. Optional, so that a missing one is a typed error naming
      // the option rather than Nest's dependency error.
      provide: QUEUEBOX_DATA_SOURCE,
      useFactory: (dataSource?: DataSource) => {
        if (!dataSource) throw new InvalidQueueBoxOptionsError('dataSource', dataSourceMissing(dataSourceName));
        return dataSource;
      },
      inject: [{ token: getDataSourceToken(dataSourceName), optional: true }],
    },
    {
      provide: QUEUEBOX_SQL_DIALECT,
      // Adapted to the connections before anything runs a statement: a pooler in transaction
      // mode keeps no prepared statement or LISTEN past a transaction (adapt-to-pooling.ts).
      useFactory: async (dataSource: DataSource, options: ResolvedQueueBoxOptions) => {
        const dialect = resolveDialect(
          dataSource,
          options.tables,
          options.preparedStatements,
          options.statementTimeoutMs,
        );
        const { workers, notify, preparedStatements } = options;
        await adaptToPooling(dialect, dataSource, {
          preparedStatements,
          listensOnPool: workers.enabled && notify.enabled && notify.listenUrl === undefined,
        });
        return dialect;
      },
      inject: [QUEUEBOX_DATA_SOURCE, QUEUEBOX_RESOLVED_OPTIONS],
    },
    ...queueBoxMetricProviders,
    QueueBoxMetrics,
    StatementRunner,
    DatabaseCheck,
    SchemaCheck,
    ClaimRepository,
    WakeUpHub,
    PublisherRegistry,
    OutboxService,
    OutboxPoller,
    DestinationLabels,
    SourceLabels,
    UnknownStreams,
    InboxService,
    InboxRelay,
    PullService,
    PullWorkerExplorer,
    RetentionSweeper,
    DeadLetterService,
    QueueBoxAdmin,
    TracingProbe,
    QueueBoxEvents,
    LeaseAdvisor,
  ];
}

/**
 * What the module exports: the public services and the resolved options. The loops themselves
 * (poller, relay, pull workers) stay internal: `QueueBoxAdmin` shows what operators need of them,
 * and `DeadLetterService` acts on what they dead-lettered.
 */
export const QUEUEBOX_EXPORTS = [
  OutboxService,
  InboxService,
  PullService,
  DeadLetterService,
  QueueBoxAdmin,
  QueueBoxEvents,
  LeaseAdvisor,
  QUEUEBOX_RESOLVED_OPTIONS,
];
