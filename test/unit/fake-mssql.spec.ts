import { afterEach, describe, expect, it } from 'vitest';
import { DataSource, MssqlParameter, QueryFailedError } from 'typeorm';
import {
  createFakeMssql,
  FakeMssqlUsageError,
  RequestError,
  TransactionError,
  type FakeMssql,
  type FakeMssqlOptions,
  type FakeResponse,
} from '../fixtures/fake-mssql/index.js';

// Proves the fake against TypeORM 1.1.1's real SqlServerDriver: every DataSource below is a
// genuine `type: 'mssql'` DataSource whose only fake part is the `driver` module.

const started: DataSource[] = [];

afterEach(async () => {
  for (const dataSource of started.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
});

async function start(
  fakeOptions: FakeMssqlOptions = {},
  dataSourceOptions: { database?: string; isolationLevel?: 'SERIALIZABLE' } = { database: 'db' },
): Promise<{ fake: FakeMssql; dataSource: DataSource }> {
  const fake = createFakeMssql(fakeOptions);
  const dataSource = new DataSource({
    type: 'mssql',
    host: 'fake',
    username: 'u',
    password: 'p',
    driver: fake.driver,
    requestTimeout: 30_000,
    ...dataSourceOptions,
  });
  await dataSource.initialize();
  started.push(dataSource);
  return { fake, dataSource };
}

/** Answers every request with the same response. */
const always = (response: FakeResponse) => () => response;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('fake mssql driver: start-up', () => {
  it('starts a DataSource with no responder; TypeORM runs only SELECT SCHEMA_NAME(), tagged as start-up', async () => {
    const { fake, dataSource } = await start();

    expect(fake.calls.map((call) => [call.kind, call.startup])).toEqual([
      ['pool-connect', true],
      ['query', true],
    ]);
    expect(fake.queries({ includeStartup: true }).map((call) => call.sql)).toEqual([
      'SELECT SCHEMA_NAME() AS "schema_name"',
    ]);
    expect(fake.queries()).toEqual([]);
    expect(dataSource.driver.schema).toBe('dbo');
    // The config TypeORM's createPool built: it forces useUTC false and enableArithAbort true.
    expect(fake.poolConfig()).toMatchObject({
      server: 'fake',
      database: 'db',
      user: 'u',
      requestTimeout: 30_000,
      options: { useUTC: false, enableArithAbort: true },
    });

    await dataSource.destroy();
    expect(fake.calls.at(-1)).toMatchObject({ kind: 'pool-close', startup: false });
  });

  it('also asks DB_NAME() when the DataSource names no database', async () => {
    const { fake, dataSource } = await start({}, {});

    expect(fake.queries({ includeStartup: true }).map((call) => [call.sql, call.startup])).toEqual([
      ['SELECT DB_NAME() AS "db_name"', true],
      ['SELECT SCHEMA_NAME() AS "schema_name"', true],
    ]);
    expect(dataSource.driver.database).toBe('master');
  });
});

describe('fake mssql driver: parameters', () => {
  it('logs a MssqlParameter with its declared type and an untyped value as inferred', async () => {
    const { fake, dataSource } = await start({ respond: always({ recordset: [{ a: '7' }] }) });

    await dataSource.query('SELECT @0 AS a, @1 AS b', [new MssqlParameter('7', 'bigint'), 'x']);

    expect(fake.queries()).toEqual([
      expect.objectContaining({
        sql: 'SELECT @0 AS a, @1 AS b',
        inTransaction: false,
        inputs: [
          { name: '0', type: { type: 'bigint' }, value: '7' },
          { name: '1', type: 'inferred', inferredAs: 'nvarchar', value: 'x' },
        ],
      }),
    ]);
  });

  it('records sizes, and what mssql infers for untyped values', async () => {
    const { fake, dataSource } = await start({ respond: always({}) });
    const when = new Date('2030-01-01T00:00:00Z');

    await dataSource.query('EXEC p @0, @1, @2, @3, @4, @5, @6, @7', [
      new MssqlParameter('k', 'nvarchar', 200),
      new MssqlParameter('{}', 'nvarchar', 'max' as unknown as number),
      new MssqlParameter('0190a8f0-0000-7000-8000-000000000000', 'uniqueidentifier'),
      new MssqlParameter('1.5', 'decimal', 18, 4),
      when,
      2 ** 40,
      null,
      true,
    ]);

    expect(fake.queries()[0].inputs).toEqual([
      { name: '0', type: { type: 'nvarchar', length: 200 }, value: 'k' },
      { name: '1', type: { type: 'nvarchar', length: 'max' }, value: '{}' },
      { name: '2', type: { type: 'uniqueidentifier' }, value: '0190a8f0-0000-7000-8000-000000000000' },
      { name: '3', type: { type: 'decimal', precision: 18, scale: 4 }, value: '1.5' },
      { name: '4', type: 'inferred', inferredAs: 'datetime', value: when },
      { name: '5', type: 'inferred', inferredAs: 'bigint', value: 2 ** 40 },
      { name: '6', type: 'inferred', inferredAs: 'nvarchar', value: null },
      { name: '7', type: 'inferred', inferredAs: 'bit', value: true },
    ]);
  });

  it("sends 'ntext' and 'text' parameters untyped, because mssql exports NText, not TypeORM's Ntext", async () => {
    const { fake, dataSource } = await start({ respond: always({}) });

    await dataSource.query('EXEC p @0, @1', [new MssqlParameter('a', 'ntext'), new MssqlParameter('b', 'text')]);

    expect(fake.queries()[0].inputs).toEqual([
      { name: '0', type: 'inferred', inferredAs: 'nvarchar', value: 'a' },
      { name: '1', type: 'inferred', inferredAs: 'nvarchar', value: 'b' },
    ]);
  });

  it('rejects an array or a plain object parameter loudly, before anything is sent', async () => {
    const { fake, dataSource } = await start({ respond: always({}) });

    const array = dataSource.query('SELECT * FROM t WHERE id IN (@0)', [['a', 'b']]);
    await expect(array).rejects.toBeInstanceOf(FakeMssqlUsageError);
    await expect(array).rejects.toThrow("parameter @0 is an array; mssql would send 'a,b'");
    await expect(dataSource.query('SELECT @0', [new MssqlParameter([1, 2], 'nvarchar', 200)])).rejects.toThrow(
      "mssql would send '1,2'",
    );
    await expect(dataSource.query('SELECT @0', [{ id: 1 }])).rejects.toThrow("mssql would send '[object Object]'");
    expect(fake.queries()).toEqual([]);
  });

  it('rejects a type that is not one of its own factories', async () => {
    const { fake } = await start();
    const pool = new fake.driver.ConnectionPool({});
    await pool.connect();

    expect(() => pool.request().input('0', 'bigint', 1)).toThrow(FakeMssqlUsageError);
    expect(() => pool.request().input('0', { type: 'bigint' }, 1)).toThrow('unknown type');
    expect(() => pool.request().input('0', fake.driver.BigInt, 1)).not.toThrow();
    expect(() => fake.driver.NVarChar('200')).toThrow("length must be a non-negative integer or 'max'");
    await pool.close();
  });
});

describe('fake mssql driver: connections and transactions', () => {
  it('runs a READ COMMITTED transaction on one pinned connection and autocommit queries elsewhere', async () => {
    const { fake, dataSource } = await start({ respond: always({ recordset: [] }) });

    const runner = dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');
    await runner.query('SELECT 1 AS one');
    await runner.query('UPDATE t SET a = 1');
    await runner.commitTransaction();
    await runner.release();
    await dataSource.query('SELECT 2 AS two');
    await dataSource.query('SELECT 3 AS three');

    expect(fake.calls.filter((call) => !call.startup).map((call) => call.kind)).toEqual([
      'begin',
      'query',
      'query',
      'commit',
      'query',
      'query',
    ]);
    const [transaction, ...others] = fake.transactions();
    expect(others).toEqual([]);
    expect(transaction).toMatchObject({ isolation: 'READ_COMMITTED', explicitIsolation: true, end: 'committed' });
    expect(transaction.queries.map((call) => [call.sql, call.connection, call.inTransaction])).toEqual([
      ['SELECT 1 AS one', transaction.connection, true],
      ['UPDATE t SET a = 1', transaction.connection, true],
    ]);
    expect(transaction.endCalls).toEqual([
      expect.objectContaining({ kind: 'commit', connection: transaction.connection }),
    ]);
    const autocommit = fake.queries().filter((call) => !call.inTransaction);
    expect(autocommit.map((call) => call.transaction)).toEqual([null, null]);
    // 'fresh' mode: every borrow outside a transaction is a new connection.
    expect(new Set([transaction.connection, ...autocommit.map((call) => call.connection)]).size).toBe(3);
    expect(fake.borrowedConnections()).toEqual([]);
  });

  it('begins with no level (mssql default READ_COMMITTED) unless one is asked for or configured', async () => {
    const plain = await start({ respond: always({}) });
    await plain.dataSource.transaction(async () => undefined);
    const configured = await start({ respond: always({}) }, { database: 'db', isolationLevel: 'SERIALIZABLE' });
    await configured.dataSource.transaction(async () => undefined);

    expect(plain.fake.transactions()).toEqual([
      expect.objectContaining({ isolation: 'READ_COMMITTED', explicitIsolation: false }),
    ]);
    expect(configured.fake.transactions()).toEqual([
      expect.objectContaining({ isolation: 'SERIALIZABLE', explicitIsolation: true }),
    ]);
  });

  it("in 'reuse' mode hands out the lowest idle connection, never the one a transaction holds", async () => {
    const { fake, dataSource } = await start({ connections: 'reuse', respond: always({}) });

    await dataSource.query('SELECT 1');
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');
    await dataSource.query('SELECT 2');
    await runner.commitTransaction();
    await dataSource.query('SELECT 3');

    const [transaction] = fake.transactions();
    expect(transaction.connection).toBe(1);
    expect(fake.queries().map((call) => [call.sql, call.connection])).toEqual([
      ['SELECT 1', 1],
      ['SELECT 2', 2],
      ['SELECT 3', 1],
    ]);
  });

  it('keeps the connection pinned when a query runner is released inside a transaction', async () => {
    const { fake, dataSource } = await start({ respond: always({}) });

    const runner = dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');
    await runner.query('UPDATE t SET a = 1');
    await runner.release();

    // TypeORM's release() only sets a flag: no rollback reaches the driver.
    expect(runner.isTransactionActive).toBe(true);
    expect(fake.transactions()).toEqual([expect.objectContaining({ end: 'open', endCalls: [] })]);
    expect(fake.borrowedConnections()).toEqual([fake.transactions()[0].connection]);
  });

  it("fails commitTransaction() with EREQINPROG while the runner's query is still running", async () => {
    const gate = deferred();
    const { fake, dataSource } = await start({
      respond: async (call) => {
        if (call.sql.startsWith('WAITFOR')) await gate.promise;
        return {};
      },
    });
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');

    const slow = runner.query("WAITFOR DELAY '00:00:01'");
    await new Promise((resolve) => setTimeout(resolve, 5));
    // TypeORM's QueryLock serializes query() calls, but commitTransaction() does not take it.
    await expect(runner.commitTransaction()).rejects.toMatchObject({ name: 'TransactionError', code: 'EREQINPROG' });
    gate.resolve();
    await slow;
    await runner.commitTransaction();

    expect(fake.transactions()[0].endCalls.map((call) => [call.kind, call.error])).toEqual([
      ['commit', 'EREQINPROG'],
      ['commit', undefined],
    ]);
    await runner.release();
  });

  it('refuses a second request on a transaction while one runs, as mssql does', async () => {
    const gate = deferred();
    const { fake } = await start({
      respond: async () => {
        await gate.promise;
        return {};
      },
    });
    const pool = new fake.driver.ConnectionPool({});
    await pool.connect();
    const transaction = pool.transaction();
    await transaction.begin(fake.driver.ISOLATION_LEVEL.READ_COMMITTED);

    const first = new fake.driver.Request(transaction).query('SELECT 1');
    const second = new fake.driver.Request(transaction).query('SELECT 2');
    await expect(second).rejects.toMatchObject({ code: 'EREQINPROG' });
    gate.resolve();
    await first;
    await transaction.commit();

    expect(fake.transactions()[0]).toMatchObject({
      end: 'committed',
      queries: [expect.objectContaining({ sql: 'SELECT 1' })],
      refused: [expect.objectContaining({ sql: 'SELECT 2', code: 'EREQINPROG' })],
    });
    await pool.close();
  });
});

describe('fake mssql driver: results', () => {
  it('returns the first result set as records and rowsAffected[0] as affected', async () => {
    const { dataSource } = await start({
      respond: always({ recordsets: [[{ id: '1' }, { id: '2' }], [{ other: true }]] }),
    });

    const result = await dataSource.createQueryRunner().query('UPDATE t SET a = 1 OUTPUT inserted.id', [], true);

    expect(result.records).toEqual([{ id: '1' }, { id: '2' }]);
    expect(result.affected).toBe(2);
  });

  it('gives records === undefined when the batch produced no result set', async () => {
    const { dataSource } = await start({ respond: always({ rowsAffected: [3] }) });
    const runner = dataSource.createQueryRunner();

    const structured = await runner.query('UPDATE t SET a = 1', [], true);
    expect(structured.records).toBeUndefined();
    expect(structured.affected).toBe(3);
    // Unstructured: the raw recordset (undefined), except a text starting "DELETE " gets [recordset, affected].
    expect(await runner.query('UPDATE t SET a = 1')).toBeUndefined();
    expect(await runner.query('DELETE FROM t')).toEqual([undefined, 3]);
    await runner.release();
  });

  it('fails an unscripted query loudly (wrapped by TypeORM, with the fake error as driverError)', async () => {
    const { dataSource } = await start();

    const failure = await dataSource.query('SELECT 42').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError).driverError).toBeInstanceOf(FakeMssqlUsageError);
    expect((failure as Error).message).toContain('no response scripted for "SELECT 42"');
  });
});

describe('fake mssql driver: errors', () => {
  it('surfaces a server error as QueryFailedError carrying number, code and the mssql fields', async () => {
    const message = 'Transaction (Process ID 52) was deadlocked on lock resources with another process.';
    const { fake, dataSource } = await start({ respond: always({ error: { number: 1205, message } }) });

    const failure = (await dataSource.query('SELECT 1').catch((error: unknown) => error)) as QueryFailedError &
      Record<string, unknown>;

    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({ number: 1205, code: 'EREQUEST', state: 1, class: 16, precedingErrors: [] });
    // QueryFailedError strips "Request" from "RequestError: ...", leaving "Error: ...".
    expect(failure.message).toBe(`Error: ${message}`);
    expect(failure.driverError).toBeInstanceOf(RequestError);
    expect((failure.driverError as RequestError).originalError).toMatchObject({ info: { number: 1205, message } });
    expect(fake.queries()[0].outcome).toEqual({ status: 'error', code: 'EREQUEST', number: 1205 });
  });

  it("simulates a request timeout: code ETIMEOUT, and mssql's number copies the code", async () => {
    const { dataSource } = await start({ respond: always({ error: { code: 'ETIMEOUT' } }) });

    const failure = (await dataSource.query('SELECT 1').catch((error: unknown) => error)) as Record<string, unknown>;

    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({
      code: 'ETIMEOUT',
      number: 'ETIMEOUT',
      message: 'Error: Timeout: Request failed to complete in 30000ms',
    });
  });

  it('after a server-side abort, rollbackTransaction() rejects with EABORT and TypeORM still thinks the transaction is active', async () => {
    const { fake, dataSource } = await start({
      respond: (call) =>
        call.sql.startsWith('UPDATE')
          ? { error: { number: 1205, message: 'deadlock victim' }, abortsTransaction: true }
          : {},
    });
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');

    await expect(runner.query('UPDATE t SET a = 1')).rejects.toMatchObject({ number: 1205 });
    const rollback = await runner.rollbackTransaction().catch((error: unknown) => error);
    expect(rollback).toBeInstanceOf(TransactionError);
    expect(rollback).not.toBeInstanceOf(QueryFailedError);
    expect(rollback).toMatchObject({ code: 'EABORT', message: 'Transaction has been aborted.' });
    expect(runner.isTransactionActive).toBe(true);
    // The runner is now stuck on the dead transaction: queries are refused, commit fails too.
    await expect(runner.query('SELECT 1')).rejects.toMatchObject({ name: 'QueryFailedError', code: 'ENOTBEGUN' });
    await expect(runner.commitTransaction()).rejects.toMatchObject({ code: 'EABORT' });
    await runner.release();

    const [transaction] = fake.transactions();
    expect(transaction.end).toBe('aborted');
    expect(fake.calls.filter((call) => !call.startup).map((call) => call.kind)).toEqual([
      'begin',
      'query',
      'abort',
      'rollback',
      'refused',
      'commit',
    ]);
    expect(transaction.endCalls.map((call) => [call.kind, call.connection, call.error])).toEqual([
      ['rollback', null, 'EABORT'],
      ['commit', null, 'EABORT'],
    ]);
    // mssql gave the connection back to the pool when the server rolled back.
    expect(fake.borrowedConnections()).toEqual([]);
  });

  it('dataSource.transaction() rethrows the original error and swallows the EABORT rollback', async () => {
    const { fake, dataSource } = await start({
      respond: always({ error: { number: 1205, message: 'deadlock victim' }, abortsTransaction: true }),
    });

    const failure = await dataSource
      .transaction('READ COMMITTED', (manager) => manager.query('UPDATE t SET a = 1'))
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({ number: 1205 });
    expect(fake.transactions()).toEqual([
      expect.objectContaining({
        end: 'aborted',
        endCalls: [expect.objectContaining({ kind: 'rollback', error: 'EABORT' })],
      }),
    ]);
  });

  it('refuses abortsTransaction on a request outside a transaction', async () => {
    const { dataSource } = await start({ respond: always({ error: { number: 1205 }, abortsTransaction: true }) });

    const failure = (await dataSource.query('SELECT 1').catch((error: unknown) => error)) as QueryFailedError;

    expect(failure.driverError).toBeInstanceOf(FakeMssqlUsageError);
  });
});
