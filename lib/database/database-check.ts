import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { retryConnectionLost } from './retry-connection-lost.js';
import { StatementRunner } from './statement-runner.js';
import type { SqlDialect } from './sql-dialect.interface.js';
import { UnsupportedDatabaseError } from '../shared/errors/unsupported-database.error.js';
import { QUEUEBOX_SQL_DIALECT } from '../shared/queuebox.constants.js';
import { databaseProblems } from '../shared/queuebox.messages.js';

/**
 * Checks at start-up what the dialect needs of its database (SQL Server: the compatibility level
 * that has OPENJSON; the READ_COMMITTED_SNAPSHOT mode, logged). A database QueueBox cannot work
 * on fails start-up with `UnsupportedDatabaseError`, before any loop runs, instead of failing
 * every claim later.
 */
@Injectable()
export class DatabaseCheck implements OnModuleInit {
  private readonly logger = new Logger('QueueBox');

  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async onModuleInit(): Promise<void> {
    const probe = this.dialect.startupProbe();
    if (!probe) return;
    const facts = await retryConnectionLost(
      'the database check',
      () => this.runner.run(probe),
      (error) => this.dialect.classifyError(error),
      this.logger,
    );
    if (facts.problems.length > 0)
      throw new UnsupportedDatabaseError(this.dialect.type, databaseProblems(this.dialect.type, facts.problems));
    for (const note of facts.notes) this.logger.log(note);
  }
}
