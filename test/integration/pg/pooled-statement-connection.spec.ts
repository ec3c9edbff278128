import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import { StatementTimeoutError } from '../../../lib/index.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';
import { resolveDialect } from '../../../lib/database/dialects/resolve-dialect.js';
import { PooledStatementConnection } from '../../../lib/database/dialects/postgres/pooled-statement-connection.js';
import { StatementRunner } from '../../../lib/database/statement-runner.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { backendsWaitingOnLock } from '../../fixtures/backends.js';
import { waitFor } from '../../fixtures/http-receiver.js';

const APPLICATION_NAME = 'queuebox-pooled-connection';

/** The counts of a node-postgres pool (pg-pool). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
}

/**
 * PostgreSQL's autocommit statements that are prepared (the hot ones: claims, marks, renewals) run
 * on a connection taken from TypeORM's pool directly, not through a TypeORM query runner. What a
 * runner gave them must hold: the connection goes back after each statement, a statement past its
 * deadline is cancelled on the server and its connection dropped, and a connection that comes after
 * its statement was given up goes straight back.
 */
describe('PostgreSQL: the pooled connection of a prepared autocommit statement', () => {
  let schema: string;
  let dataSource: DataSource;
  let observer: DataSource;
  const pool = (): PoolCounts => PooledStatementConnection.poolOf(dataSource) as unknown as PoolCounts;
  const tables = () => resolveOptions({ schema }).tables;
  const claimStatement = (dialect: ReturnType<typeof resolveDialect>) =>
    dialect.claimOutbox(['d'], new WalkCursor().request(10, 30_000), { lock: false }).claim;
  const claim = (runner: StatementRunner, dialect: ReturnType<typeof resolveDialect>) =>
    runner.run(claimStatement(dialect));

  beforeAll(async () => {
    schema = await createTestSchema();
    dataSource = await openDataSource(schema, 2, { applicationName: APPLICATION_NAME });
    observer = await openDataSource(schema, 2);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await observer?.destroy();
    await testDatabase().dropSchema(schema);
  });

  it("runs without a TypeORM query runner and gives its connection back to the DataSource's pool", async () => {
    const dialect = resolveDialect(dataSource, tables());
    const runner = new StatementRunner(dataSource, dialect);
    const statement = claimStatement(dialect);
    expect(statement.name).toBeDefined();
    const runners = vi.spyOn(dataSource, 'createQueryRunner');
    try {
      for (let round = 0; round < 5; round += 1) await runner.run(statement);
      expect(runners).not.toHaveBeenCalled();
    } finally {
      runners.mockRestore();
    }
    expect(pool().idleCount).toBe(pool().totalCount);
  });

  it('past its deadline: cancelled on the server, its connection dropped, and the next statement runs', async () => {
    const dialect = resolveDialect(dataSource, tables(), true, 500);
    const runner = new StatementRunner(dataSource, dialect);
    await claim(runner, dialect);
    const before = pool().totalCount;
    const locker = observer.createQueryRunner();
    await locker.startTransaction();
    try {
      await locker.query(`LOCK TABLE ${testDatabase().table(schema, 'outbox')} IN ACCESS EXCLUSIVE MODE`);
      await expect(claim(runner, dialect)).rejects.toBeInstanceOf(StatementTimeoutError);
      // The backend stopped waiting on the lock (cancelled), and the pool forgot the connection.
      await waitFor(
        async () => (await backendsWaitingOnLock(observer, APPLICATION_NAME)) === 0,
        10_000,
        'no backend of the pool waiting on the lock',
      );
      await waitFor(async () => pool().totalCount === before - 1, 10_000, 'the discarded connection left the pool');
    } finally {
      await locker.commitTransaction();
      await locker.release();
    }
    await expect(claim(runner, dialect)).resolves.toEqual(expect.objectContaining({ rows: [] }));
  });

  it('a connection that comes after its statement was given up goes straight back to the pool', async () => {
    const source = PooledStatementConnection.poolOf(dataSource)!;
    // Both places of the pool held: the connection asked for next waits.
    const held = await Promise.all(
      [dataSource.createQueryRunner(), dataSource.createQueryRunner()].map(async (r) => (await r.connect(), r)),
    );
    const connection = new PooledStatementConnection(source);
    const connecting = connection.connect();
    await connection.release();
    await held[0].release();
    await expect(connecting).rejects.toThrow(/given up/);
    expect(connection.databaseConnection).toBeUndefined();
    await held[1].release();
    expect(pool().idleCount).toBe(pool().totalCount);
  });
});
