import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QueueBoxAdmin } from '../admin/queuebox-admin.service.js';
import { StatementRunner } from '../../database/statement-runner.js';
import { DeadLetterService } from '../../features/dead-letters/dead-letter.service.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { QueueBoxModule } from '../module/queuebox.module.js';
import type { CliConnection } from './connection-url.js';

/** What a command works with: the admin and dead-letter services, and the dialect with its runner for what they have no call for. */
export interface QueueBoxParts {
  admin: QueueBoxAdmin;
  deadLetters: DeadLetterService;
  runner: StatementRunner;
  dialect: SqlDialect;
}

/** The root module of the CLI's application context. */
@Module({})
class QueueBoxCliModule {}

/**
 * Runs `work` in a Nest application context holding QueueBox on the URL's database, then closes
 * it (and its pool), whatever `work` did.
 *
 * Why a Nest application context and not a bare TypeORM DataSource: `status` and `dead` are the
 * operations of `QueueBoxAdmin` and `DeadLetterService`, which are built from QueueBox's own
 * providers (the resolved options, the dialect, the statement runner, the wake-ups). Booting
 * `QueueBoxModule` gives the CLI the very code the application runs, with the same validation of
 * the table names and the same start-up check of the database; a DataSource-only CLI would
 * rebuild those pieces by hand and drift from them. `workers.enabled: false` keeps every loop (outbox poller, relay,
 * pull workers, retention sweeper) and the PostgreSQL LISTEN connection from starting: each of
 * them checks it at bootstrap. No HTTP server is created. The commands import this module
 * lazily: `schema` and `--help` load neither Nest nor TypeORM.
 */
export async function withQueueBox<T>(
  connection: CliConnection,
  tables: ResolvedTableNames,
  work: (parts: QueueBoxParts) => Promise<T>,
): Promise<T> {
  const root: DynamicModule = {
    module: QueueBoxCliModule,
    imports: [
      // One attempt: an unreachable database is the operator's answer, not a reason to wait 30 s.
      TypeOrmModule.forRoot({ ...connection.options, retryAttempts: 0, toRetry: () => false }),
      QueueBoxModule.forRoot({
        schema: tables.schema,
        tables: { outbox: tables.outbox, inbox: tables.inbox },
        workers: { enabled: false },
      }),
    ],
  };
  // abortOnError: false, so that a failed start-up is an error the CLI reports (exit 1), not process.abort().
  const context = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  try {
    return await work({
      admin: context.get(QueueBoxAdmin),
      deadLetters: context.get(DeadLetterService),
      runner: context.get(StatementRunner),
      dialect: context.get<SqlDialect>(QUEUEBOX_SQL_DIALECT),
    });
  } finally {
    await context.close();
  }
}
