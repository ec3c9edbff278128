import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { StatementRunner } from '../../database/statement-runner.js';
import { createTablesStatements } from '../../database/dialects/own-schema.js';
import { resolveDialect } from '../../database/dialects/resolve-dialect.js';
import type { QueueBoxModuleOptions } from '../../shared/interfaces/queuebox-options.interface.js';
import type { QueueBoxModuleExtras } from '../module/queuebox.module-definition.js';
import { QueueBoxModule } from '../module/queuebox.module.js';
import { resolveOptions } from '../../config/options/resolve-options.js';

/** Options of `QueueBoxTestingModule.forRoot()`. @publicApi */
export interface QueueBoxTestingModuleOptions {
  /** The PostgreSQL server to test on: `(await startEmbeddedPostgres()).url`, or any URL. */
  url: string;
  /**
   * QueueBox's options, as given to `QueueBoxModule.forRoot`. Without `schema`, the tables go to
   * a fresh schema `qb_test_<random>` (test files running side by side never share rows).
   */
  queuebox?: QueueBoxModuleOptions & Omit<QueueBoxModuleExtras, 'dataSource'>;
  /** More TypeORM options of the DataSource (`entities`, `logging`…). */
  typeorm?: Partial<Omit<DataSourceOptions, 'type'>>;
  /** Connections in the pool. Default 5. */
  poolSize?: number;
}

/**
 * A test preset: a TypeORM DataSource on a PostgreSQL server (an embedded one from
 * `startEmbeddedPostgres()`), QueueBox's tables in a schema of their own made at start-up (by
 * QueueBox's own DDL, no migrations to register), and `QueueBoxModule` on it. Import it in
 * `Test.createTestingModule` next to the modules under test, in place of your app's TypeORM and
 * QueueBox set-up.
 * @publicApi
 */
@Module({})
export class QueueBoxTestingModule {
  static forRoot(options: QueueBoxTestingModuleOptions): DynamicModule {
    const schema = options.queuebox?.schema ?? `qb_test_${randomBytes(6).toString('hex')}`;
    const queuebox = { ...options.queuebox, schema };
    const tables = resolveOptions({ schema, tables: queuebox.tables }).tables;
    return {
      module: QueueBoxTestingModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () =>
            ({
              ...options.typeorm,
              type: 'postgres',
              url: options.url,
              extra: { max: options.poolSize ?? 5 },
            }) as DataSourceOptions,
          // The tables exist before anything (QueueBox's start-up included) uses the DataSource.
          dataSourceFactory: async (dataSourceOptions) => {
            const dataSource = await new DataSource(dataSourceOptions!).initialize();
            const dialect = resolveDialect(dataSource, tables);
            const runner = new StatementRunner(dataSource, dialect);
            for (const statement of createTablesStatements(dialect)) await runner.run(statement);
            return dataSource;
          },
        }),
        QueueBoxModule.forRoot(queuebox),
      ],
      exports: [TypeOrmModule, QueueBoxModule],
    };
  }
}
