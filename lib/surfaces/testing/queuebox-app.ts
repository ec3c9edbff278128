import type { INestApplicationContext } from '@nestjs/common';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { StatementRunner } from '../../database/statement-runner.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { PublisherRegistry } from '../../features/publishers/publisher-registry.js';
import { PullWorkerExplorer } from '../../features/pull/pull-worker.explorer.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { notAQueueBoxApp } from './testing.messages.js';

/**
 * A Nest application (or testing module) that imports QueueBoxModule: what the testing kit's
 * helpers take. `INestApplication` and `TestingModule` both are one.
 * @publicApi
 */
export type QueueBoxTestApp = Pick<INestApplicationContext, 'get'>;

/** The parts of QueueBox inside an application that the testing kit drives. */
export interface QueueBoxInternals {
  options: ResolvedQueueBoxOptions;
  dialect: SqlDialect;
  runner: StatementRunner;
  repository: ClaimRepository;
  wakeUps: WakeUpHub;
  publishers: PublisherRegistry;
  pullWorkers: PullWorkerExplorer;
}

/** Finds QueueBox's providers in `app` (anywhere in its module tree); a typed error when there is none. */
export function queueBoxInternals(app: QueueBoxTestApp, caller: string): QueueBoxInternals {
  try {
    const get = <T>(token: unknown): T => app.get(token as string, { strict: false }) as T;
    return {
      options: get(QUEUEBOX_RESOLVED_OPTIONS),
      dialect: get(QUEUEBOX_SQL_DIALECT),
      runner: get(StatementRunner),
      repository: get(ClaimRepository),
      wakeUps: get(WakeUpHub),
      publishers: get(PublisherRegistry),
      pullWorkers: get(PullWorkerExplorer),
    };
  } catch (error) {
    throw new InvalidArgumentError(
      'app',
      `${notAQueueBoxApp(caller)} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
