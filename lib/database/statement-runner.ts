import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { IsolationLevel, SqlDialect, SqlStatement } from './sql-dialect.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_SQL_DIALECT } from '../shared/queuebox.constants.js';

/** Runs statements on the connection of one open transaction. */
export interface TransactionScope {
  run<Result>(statement: SqlStatement<Result>): Promise<Result>;
}

/**
 * The only place QueueBox's statements are executed: on a pooled connection in autocommit, in the
 * caller's transaction (a manager), or in a short transaction of QueueBox's own. The dialect runs
 * each statement (prepared statements, typed parameters) and each statement decodes its rows.
 */
@Injectable()
export class StatementRunner {
  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /**
   * Runs one statement. With a manager that has a query runner (a TypeORM transaction) the
   * statement joins that transaction; otherwise it runs on its own pooled connection in autocommit.
   */
  async run<Result>(statement: SqlStatement<Result>, manager?: EntityManager): Promise<Result> {
    // A manager's query runner is used even when released: TypeORM then throws, instead of the
    // statement silently leaving the caller's transaction.
    const joined = manager?.queryRunner;
    if (joined) return this.on(joined, statement);
    const runner = this.dataSource.createQueryRunner();
    try {
      return await this.on(runner, statement);
    } catch (error) {
      this.dropIfReadOnly(runner, error);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /**
   * Runs `work` in one transaction at `isolation` on one connection, and commits. Any failure
   * rolls back; a rollback that fails too (the server already ended the transaction) is ignored,
   * and the first failure is what the caller sees.
   */
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

  /**
   * Runs `work` in a TypeORM transaction at READ COMMITTED (the relay's forward, a pull worker's
   * handler and completion): the level QueueBox's fenced writes and hand-offs are reasoned for,
   * whatever the DataSource's default.
   */
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
   * A connection whose server refused a write as read-only is ended, never handed out again. After
   * a failover a client may still hold sessions on the demoted primary (a DNS name moved, but the
   * connections opened through it stay where they are); the pool would hand them out again and
   * again, and every write on them would fail for as long as they live. A new connection follows
   * the address to the new primary. Only connections QueueBox holds: never a caller's transaction.
   */
  private dropIfReadOnly(runner: QueryRunner, error: unknown): void {
    if (this.dialect.classifyError(error) === 'read-only') this.dialect.discardConnection(runner);
  }

  /**
   * The isolation level to name when a transaction starts: always on a database where the level
   * of a pooled connection's last transaction sticks (SQL Server); elsewhere only when the
   * DataSource's default is another level (naming it costs PostgreSQL a round trip).
   */
  private isolation(wanted: IsolationLevel): IsolationLevel | undefined {
    const configured = this.dataSource.options.isolationLevel;
    if (this.dialect.isolationSticks || (configured !== undefined && configured !== wanted)) return wanted;
    return undefined;
  }

  private async on<Result>(runner: QueryRunner, statement: SqlStatement<Result>): Promise<Result> {
    return statement.decode(await this.dialect.execute(runner, statement));
  }
}
