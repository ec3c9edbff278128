import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { IsolationLevel, SqlDialect, SqlStatement } from './sql-dialect.interface.js';
import type { StatementConnection } from './statement-connection.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_SQL_DIALECT } from '../shared/queuebox.constants.js';

export interface TransactionScope {
  run<Result>(statement: SqlStatement<Result>): Promise<Result>;
}

/**
 * The only place QueueBox's statements are executed: in autocommit, in the caller's transaction, or
 * in a short transaction of its own.
 */
@Injectable()
export class StatementRunner {
  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /** Runs one statement: in the manager's transaction when it has a query runner, else in autocommit. */
  async run<Result>(statement: SqlStatement<Result>, manager?: EntityManager): Promise<Result> {
    // A manager's query runner is used even when released: TypeORM then throws, instead of the
    // statement silently leaving the caller's transaction.
    const joined = manager?.queryRunner;
    if (joined) return this.on(joined, statement);
    // A named (prepared) statement never passes through TypeORM's runner (the dialect's executor
    // gives it to the driver's client), so the dialect's own pooled connection serves it.
    const runner = statement.name
      ? this.dialect.autocommitConnection(this.dataSource)
      : this.dataSource.createQueryRunner();
    try {
      return await this.on(runner, statement);
    } catch (error) {
      this.dropIfReadOnly(runner, error);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Runs `work` in one transaction and commits; a failed rollback is ignored, the first failure stands. */
  async transaction<T>(isolation: IsolationLevel, work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await this.dialect.bounded(runner, () => runner.startTransaction(this.isolation(isolation)));
      const result = await work({ run: (statement) => this.on(runner, statement) });
      await this.dialect.bounded(runner, () => runner.commitTransaction());
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      this.dropIfReadOnly(runner, error);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Runs `work` in a TypeORM transaction at READ COMMITTED, the level fenced writes are reasoned for. */
  withManager<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const level = this.isolation('READ COMMITTED');
    const guarded = async (manager: EntityManager): Promise<T> => {
      try {
        return await work(manager);
      } catch (error) {
        // TypeORM's rollback then fails on the ended connection, and ignores it: the work's error is what the caller sees.
        if (manager.queryRunner) this.dropIfReadOnly(manager.queryRunner, error);
        throw error;
      }
    };
    return level ? this.dataSource.transaction(level, guarded) : this.dataSource.transaction(guarded);
  }

  /**
   * A connection refused as read-only (after a failover, connections opened to the demoted primary
   * stay there) is ended, so the pool never hands it out again. Never a caller's transaction.
   */
  private dropIfReadOnly(runner: StatementConnection, error: unknown): void {
    if (this.dialect.classifyError(error) === 'read-only') this.dialect.discardConnection(runner);
  }

  /** Name the level where it sticks to pooled connections (SQL Server), else only if not the default (a round trip). */
  private isolation(wanted: IsolationLevel): IsolationLevel | undefined {
    const configured = this.dataSource.options.isolationLevel;
    if (this.dialect.isolationSticks || (configured !== undefined && configured !== wanted)) return wanted;
    return undefined;
  }

  private async on<Result>(runner: StatementConnection, statement: SqlStatement<Result>): Promise<Result> {
    return statement.decode(await this.dialect.execute(runner, statement));
  }
}
