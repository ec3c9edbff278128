import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { dialectOfType } from '../../database/dialects/dialect-registry.js';
import { migrationName, schemaSteps } from '../../database/dialects/schema-steps.js';
import { abortableDelay } from '../abortable.js';
import { errorText } from '../../shared/errors/error-text.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { MissingMigrationsError } from '../../shared/errors/missing-migrations.error.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import {
  QUEUEBOX_DATA_SOURCE,
  QUEUEBOX_RESOLVED_OPTIONS,
  QUEUEBOX_SQL_DIALECT,
} from '../../shared/queuebox.constants.js';
import {
  dataSourceNotInitialized,
  loopStartFailed,
  missingMigrations,
  tablesCheckFailed,
  tablesReady,
  waitingForMigrations,
} from '../../shared/queuebox.messages.js';
import { DatabaseCheck } from '../../database/database-check.js';
import { schemaGaps } from './schema-gaps.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { StatementRunner } from '../../database/statement-runner.js';
import { retryConnectionLost } from '../../database/retry-connection-lost.js';

/** Why the tables are not ready: in words (health, the warning), and what start-up throws when it does not wait. */
interface NotReady {
  problems: string[];
  error: unknown;
}

/** What starts a loop once the tables are ready. */
type LoopStart = () => void | Promise<void>;

/**
 * Checks at start-up (`onModuleInit`, before any loop starts) that QueueBox's tables exist with the
 * columns of its schema version; nothing on the hot path. Not ready: `MissingMigrationsError`, or with
 * `startup.waitForMigrations` a warning, health down and loops waiting until a later check passes.
 * An uninitialized DataSource or a failing check counts as not ready too.
 */
@Injectable()
export class SchemaCheck implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueueBox');
  private readonly stopped = new AbortController();
  private readonly pending: LoopStart[] = [];
  private waiting?: Promise<void>;
  private notReady: readonly string[] = [];

  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    // NOTE: injected only so that Nest runs the database's check first (a provider's hooks run
    // after those of its dependencies): a database QueueBox cannot run on is reported as such,
    // not as tables it lacks.
    _database: DatabaseCheck,
  ) {}

  /** Empty when the tables are ready; else what the last check found (health reports it). */
  get problems(): readonly string[] {
    return this.notReady;
  }

  async onModuleInit(): Promise<void> {
    const found = await this.inspect();
    if (!found) return;
    const { waitForMigrations, checkIntervalMs } = this.options.startup;
    if (!waitForMigrations) throw found.error;
    this.notReady = found.problems;
    this.logger.warn(waitingForMigrations(found.problems, checkIntervalMs));
    this.waiting = this.waitForTables(checkIntervalMs);
  }

  /** Runs a loop's `start` when the tables are ready (now, or later; never after shutdown began). */
  async whenReady(start: LoopStart): Promise<void> {
    if (this.notReady.length === 0) return start();
    if (!this.stopped.signal.aborted) this.pending.push(start);
  }

  /** Stops waiting: no loop starts from now on. Runs before the loops drain and the DataSource closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped.abort();
    this.pending.length = 0;
    await this.waiting;
  }

  private async waitForTables(intervalMs: number): Promise<void> {
    const signal = this.stopped.signal;
    const began = performance.now();
    while (!signal.aborted) {
      await abortableDelay(intervalMs, signal);
      if (signal.aborted) return;
      const found = await this.inspect();
      if (signal.aborted) return;
      if (found) {
        this.notReady = found.problems;
        continue;
      }
      this.notReady = [];
      this.logger.log(tablesReady(performance.now() - began));
      for (const start of this.pending.splice(0)) {
        await Promise.resolve()
          .then(start)
          .catch((error: unknown) => this.logger.error(loopStartFailed(), { error: errorText(error) }));
      }
      return;
    }
  }

  private async inspect(): Promise<NotReady | undefined> {
    if (!this.dataSource.isInitialized) {
      const message = dataSourceNotInitialized();
      return { problems: [message], error: new InvalidQueueBoxOptionsError('dataSource', message) };
    }
    const { tables } = this.dialect;
    let found;
    try {
      found = await retryConnectionLost(
        'the check of the tables',
        () => this.runner.run(this.dialect.tableColumns()),
        (error) => this.dialect.classifyError(error),
        this.logger,
      );
    } catch (error) {
      return { problems: [tablesCheckFailed(errorText(error))], error };
    }
    const gaps = schemaGaps(schemaSteps(this.dialect.type, tables), found, tables);
    if (gaps.problems.length === 0) return undefined;
    const migrations = gaps.steps.map((step) => migrationName(step, tables));
    // The dialect resolved from this profile: it is registered.
    const profile = dialectOfType(this.dialect.type)!;
    const message = missingMigrations(
      profile.displayName,
      { type: profile.name, defaultMigrations: profile.schema.defaultMigrations },
      tables,
      gaps.problems,
      migrations,
    );
    return {
      problems: gaps.problems,
      error: new MissingMigrationsError(profile.name, migrations, gaps.problems, message),
    };
  }
}
