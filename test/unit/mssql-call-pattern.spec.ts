import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimRepository } from '../../lib/engine/claim.repository.js';
import { StatementRunner } from '../../lib/database/statement-runner.js';
import { WalkCursor } from '../../lib/engine/walk-cursor.js';
import { mssqlDialect } from '../../lib/database/dialects/mssql/mssql.dialect.js';
import { resolveDialect } from '../../lib/database/dialects/resolve-dialect.js';
import type { ClaimRequest } from '../../lib/database/sql-dialect.interface.js';
import { StatementCatalog } from '../../lib/database/dialects/statement-catalog.js';
import type { Claim } from '../../lib/shared/interfaces/claim.interface.js';
import { OUTBOX_COLUMNS, INBOX_COLUMNS } from '../../lib/database/dialects/schema-columns.js';
import {
  InvalidQueueBoxOptionsError,
  MissingMigrationsError,
  OutboxService,
  QueueBoxModule,
  UnsupportedDatabaseError,
} from '../../lib/index.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import {
  createFakeMssql,
  type FakeMssql,
  type FakeResponse,
  type FakeRow,
  type QueryCall,
} from '../fixtures/fake-mssql/index.js';
import { waitFor } from '../fixtures/http-receiver.js';
import { RecordingPublisher } from '../fixtures/recording-publisher.js';

/*
 * The SQL Server call pattern, proven against TypeORM's real SQL Server driver code with a fake
 * `mssql` module (test/fixtures/fake-mssql): which requests go out, on which connection, inside
 * which transaction at which isolation level, with which typed parameters, and how the repository
 * reads what comes back (tedious returns bigint ids as strings, GUIDs upper-case, bits as
 * booleans). No statement runs on a SQL Server here: what the statements do is for a live server.
 */

const tables = resolveOptions({}).tables;
const dialect = new StatementCatalog(mssqlDialect, tables);
const request: ClaimRequest = new WalkCursor().request(10, 30_000);
const TOKEN = 'B9A0C5E2-4F1D-4C8A-9E77-0123456789AB';
const MESSAGE_ID = '0193B2C4-0000-7000-8000-00000000000A';

/** Each statement the dialect produces, by its text: the fake answers by name. */
const statementNames = new Map<string, string>([
  [dialect.claimOutbox(['sink'], request, { lock: false }).lock!.acquire.sql, 'lock'],
  [dialect.claimOutbox(['sink'], request, { lock: false }).claim.sql, 'claimOutbox'],
  [dialect.claimOutbox(['sink'], { ...request, afterIdle: true }, { lock: false }).probe!.sql, 'probeOutbox'],
  [dialect.claimInbox(['s'], request).claim.sql, 'claimInbox'],
  [dialect.claimPull('s', request, { lock: false }).claim.sql, 'claimPull'],
  [dialect.completeMany('outbox', [], 1).sql, 'completeOutbox'],
  [dialect.completeMany('pull', [], 1).sql, 'completePull'],
  [dialect.renewMany('outbox', [], 1).sql, 'renewManyOutbox'],
  [dialect.renew('outbox', { id: '1', token: TOKEN }, 1).sql, 'renewOutbox'],
  [dialect.retry('outbox', { id: '1', token: TOKEN }, 1, 'e').sql, 'retryOutbox'],
  [dialect.deadLetter('outbox', { id: '1', token: TOKEN }, 'e').sql, 'deadLetterOutbox'],
  [dialect.reclaimExpired('outbox', 1).sql, 'reclaimOutbox'],
  [dialect.outboxBacklog().sql, 'outboxBacklog'],
  [dialect.inboxBacklog().sql, 'inboxBacklog'],
  [
    dialect.insertOutbox([
      { messageId: MESSAGE_ID, destination: 'd', key: null, headers: '{}', payload: '1', delayMs: 0 },
    ]).sql,
    'insertOutboxOne',
  ],
  [dialect.startupProbe()!.sql, 'startupProbe'],
  [dialect.tableColumns().sql, 'tableColumns'],
]);
const nameOf = (call: QueryCall): string => statementNames.get(call.sql) ?? `unknown: ${call.sql.slice(0, 60)}`;

/** The start-up check's rows as SQL Server returns them: the columns of each table that exists (`present` a bit), one NULL row for one that does not. */
const tableColumnRows = (tables: { outbox?: readonly string[]; inbox?: readonly string[] }): FakeRow[] =>
  (['outbox', 'inbox'] as const).flatMap((table): FakeRow[] => {
    const columns = tables[table];
    return columns
      ? columns.map((name) => ({ table_key: table, present: true, column_name: name }))
      : [{ table_key: table, present: false, column_name: null }];
  });
const migratedTables = { outbox: OUTBOX_COLUMNS, inbox: INBOX_COLUMNS };

/** A claim's result set as tedious returns it: the progress columns, then the claimed row's. */
const claimRows = (rows: FakeRow[]): FakeRow[] => {
  const progress = { window_rows: rows.length, cursor_stream: null, cursor_key: null, walked: 0 };
  const empty = {
    id: null,
    message_id: null,
    destination: null,
    ordering_key: null,
    headers: null,
    payload: null,
    claim_token: null,
    attempts: null,
    inverted: null,
  };
  return rows.length === 0 ? [{ ...progress, ...empty }] : rows.map((row) => ({ ...progress, ...row }));
};
const outboxRow = (id: string): FakeRow => ({
  id,
  message_id: MESSAGE_ID,
  destination: 'sink',
  ordering_key: 'order-1',
  headers: '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}',
  payload: '{"n":1}',
  claim_token: TOKEN,
  attempts: 1,
  inverted: false,
});

describe('SQL Server call pattern (fake mssql driver)', () => {
  let fake: FakeMssql;
  let dataSource: DataSource;
  let repository: ClaimRepository;
  let responses: Record<string, (call: QueryCall) => FakeResponse | undefined>;

  beforeEach(async () => {
    responses = {};
    fake = createFakeMssql({ respond: (call) => responses[nameOf(call)]?.(call) });
    dataSource = await new DataSource({
      type: 'mssql',
      host: 'fake',
      username: 'u',
      password: 'p',
      database: 'app',
      driver: fake.driver,
    }).initialize();
    repository = new ClaimRepository(new StatementRunner(dataSource, dialect), dialect);
  });
  afterEach(async () => {
    await dataSource?.destroy();
  });

  it('claims in one READ COMMITTED transaction on one connection: the lock in its own request, then the claim, then commit', async () => {
    responses.lock = () => ({ recordset: [{ granted: 0 }] });
    responses.claimOutbox = () => ({ recordset: claimRows([outboxRow('41')]) });
    const { rows } = await repository.claimOutbox(['sink'], request, { lock: false });
    const [transaction] = fake.transactions();
    expect(transaction).toMatchObject({ isolation: 'READ_COMMITTED', explicitIsolation: true, end: 'committed' });
    expect(transaction.queries.map(nameOf)).toEqual(['lock', 'claimOutbox']);
    expect(new Set(transaction.queries.map((query) => query.connection))).toEqual(new Set([transaction.connection]));
    // The lock resource is a typed nvarchar(255) naming the table; the claim's values are typed too.
    expect(transaction.queries[0].inputs).toEqual([
      { name: '0', type: { type: 'nvarchar', length: 255 }, value: 'queuebox_outbox_claim_queuebox_outbox_messages' },
    ]);
    expect(transaction.queries[1].inputs.map((input) => input.type)).toEqual([
      { type: 'int' },
      { type: 'int' },
      { type: 'int' },
      { type: 'int' },
      { type: 'nvarchar', length: 200 },
      { type: 'nvarchar', length: 200 },
      { type: 'nvarchar', length: 65_535 },
    ]);
    // The destinations go as a JSON array (@6): the claim takes rows of these only.
    expect(transaction.queries[1].inputs.at(-1)).toEqual({
      name: '6',
      type: { type: 'nvarchar', length: 65_535 },
      value: '["sink"]',
    });
    // Decoded: ids as strings, GUIDs lower-case whatever the driver's case, headers parsed.
    expect(rows).toEqual([
      {
        id: '41',
        messageId: MESSAGE_ID.toLowerCase(),
        destination: 'sink',
        key: 'order-1',
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        payload: '{"n":1}',
        token: TOKEN.toLowerCase(),
        attempts: 1,
        inverted: false,
      },
    ]);
    expect(fake.borrowedConnections()).toEqual([]);
  });

  it('takes the lock even when the options do not ask for it, for pull claims of a source too', async () => {
    responses.lock = () => ({ recordset: [{ granted: 1 }] });
    responses.claimPull = () => ({ recordset: claimRows([]) });
    await repository.claimPull('payments', new WalkCursor(['payments']).request(5, 30_000), { lock: false });
    const [transaction] = fake.transactions();
    expect(transaction.queries.map(nameOf)).toEqual(['lock', 'claimPull']);
    expect(transaction.queries[0].inputs[0].value).toBe('queuebox_pull_queuebox_inbox_messages:payments');
    // The source goes as a JSON array (@6), never as a JS array mssql would send as "a,b".
    expect(transaction.queries[1].inputs.at(-1)).toEqual({
      name: '6',
      type: { type: 'nvarchar', length: 65_535 },
      value: '["payments"]',
    });
  });

  it.each([
    ['timed out (-1)', -1],
    ['a deadlock victim (-3)', -3],
  ])('rolls back and claims nothing when the lock was not granted: %s', async (_, code) => {
    responses.lock = () => ({ recordset: [{ granted: code }] });
    const result = await repository.claimOutbox(['sink'], request, { lock: true });
    expect(result).toMatchObject({ rows: [], skipped: 'contended' });
    const [transaction] = fake.transactions();
    expect(transaction.queries.map(nameOf)).toEqual(['lock']);
    expect(transaction.end).toBe('rolled-back');
  });

  it('a claim chosen as deadlock victim (1205, its transaction aborted by the server) claims nothing; the failed rollback is swallowed', async () => {
    responses.lock = () => ({ recordset: [{ granted: 0 }] });
    responses.claimOutbox = () => ({
      error: { number: 1205, message: 'Transaction was deadlocked' },
      abortsTransaction: true,
    });
    expect(await repository.claimOutbox(['sink'], request, { lock: true })).toMatchObject({
      rows: [],
      skipped: 'contended',
    });
    const [transaction] = fake.transactions();
    expect(transaction.end).toBe('aborted');
    expect(fake.borrowedConnections()).toEqual([]);
  });

  it('a claim the driver timed out rolls back and fails the tick (the poll loop backs off)', async () => {
    responses.lock = () => ({ recordset: [{ granted: 0 }] });
    responses.claimOutbox = () => ({ error: { code: 'ETIMEOUT' } });
    await expect(repository.claimOutbox(['sink'], request, { lock: true })).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(fake.transactions()[0].end).toBe('rolled-back');
    expect(
      dialect.classifyError(
        await repository.claimOutbox(['sink'], request, { lock: true }).catch((error: unknown) => error),
      ),
    ).toBe('timeout');
  });

  it('after an idle claim, probes first without a transaction, and takes no lock when nothing is due', async () => {
    responses.probeOutbox = () => ({ recordset: [] });
    const result = await repository.claimOutbox(['sink'], { ...request, afterIdle: true }, { lock: true });
    expect(result).toMatchObject({ rows: [], skipped: 'nothing-due' });
    expect(fake.transactions()).toEqual([]);
    expect(fake.queries().map((query) => [nameOf(query), query.inTransaction])).toEqual([['probeOutbox', false]]);
    // Something due: the claim runs as usual.
    responses.probeOutbox = () => ({ recordset: [{ due: true }] });
    responses.lock = () => ({ recordset: [{ granted: 0 }] });
    responses.claimOutbox = () => ({ recordset: claimRows([]) });
    await repository.claimOutbox(['sink'], { ...request, afterIdle: true }, { lock: true });
    expect(fake.transactions()[0].queries.map(nameOf)).toEqual(['lock', 'claimOutbox']);
  });

  it('runs fenced writes in autocommit, one request each, with typed values, and counts the OUTPUT rows', async () => {
    const claim: Claim = { component: 'outbox', id: '41', token: TOKEN.toLowerCase(), leaseMs: 30_000 };
    responses.renewOutbox = () => ({ recordset: [{ id: '41' }] });
    responses.retryOutbox = () => ({ recordset: [] });
    responses.deadLetterOutbox = () => ({ recordset: [{ id: '41' }] });
    expect(await repository.renew(claim)).toBe('ok');
    expect(await repository.retry(claim, 1_500.4, 'HTTP 503')).toBe('lost');
    expect(await repository.deadLetter(claim, 'x'.repeat(5_000))).toBe('ok');
    const queries = fake.queries();
    expect(queries.map((query) => [nameOf(query), query.inTransaction])).toEqual([
      ['renewOutbox', false],
      ['retryOutbox', false],
      ['deadLetterOutbox', false],
    ]);
    expect(queries[1].inputs).toEqual([
      { name: '0', type: { type: 'bigint' }, value: '41' },
      { name: '1', type: { type: 'uniqueidentifier' }, value: TOKEN.toLowerCase() },
      { name: '2', type: { type: 'int' }, value: 1_500 },
      { name: '3', type: { type: 'nvarchar', length: 65_535 }, value: 'HTTP 503' },
    ]);
    // The error text is bounded before it is sent.
    expect(String(queries[2].inputs[2].value).length).toBe(4_000);
  });

  it('a fenced write in a caller’s transaction runs on that transaction’s connection', async () => {
    responses.completePull = () => ({ recordset: [{ outcome: 'done', id: '7' }] });
    const claim: Claim = { component: 'pull', id: '7', token: TOKEN.toLowerCase(), leaseMs: 30_000 };
    await dataSource.transaction('READ COMMITTED', (manager) => repository.complete(claim, { manager }));
    const [transaction] = fake.transactions();
    expect(transaction.queries.map(nameOf)).toEqual(['completePull']);
    expect(transaction).toMatchObject({ isolation: 'READ_COMMITTED', end: 'committed' });
    expect(transaction.queries[0].inputs.map((input) => input.value)).toEqual([
      '["7"]',
      `["${TOKEN.toLowerCase()}"]`,
      0,
      false,
    ]);
  });

  it('a fenced write chosen as deadlock victim in autocommit runs once more; in a caller’s transaction it fails the transaction', async () => {
    let victim = true;
    responses.completeOutbox = () =>
      victim ? ((victim = false), { error: { number: 1205 } }) : { recordset: [{ outcome: 'done', id: '1' }] };
    const claim: Claim = { component: 'outbox', id: '1', token: TOKEN.toLowerCase(), leaseMs: 30_000 };
    expect(await repository.complete(claim)).toBe('ok');
    expect(fake.queries().map(nameOf)).toEqual(['completeOutbox', 'completeOutbox']);
    victim = true;
    await expect(
      dataSource.transaction('READ COMMITTED', (manager) => repository.complete(claim, { manager })),
    ).rejects.toMatchObject({ number: 1205 });
  });

  it('decodes a completion’s done and handed-on rows, and a renewal with no result set', async () => {
    responses.completeOutbox = () => ({
      recordset: [
        {
          outcome: 'done',
          id: '1',
          message_id: null,
          destination: null,
          ordering_key: null,
          headers: null,
          payload: null,
          claim_token: null,
          attempts: null,
          inverted: null,
        },
        { outcome: 'claimed', ...outboxRow('2') },
      ],
    });
    const claims: Claim[] = [
      { component: 'outbox', id: '1', token: TOKEN.toLowerCase(), leaseMs: 30_000 },
      { component: 'outbox', id: '9', token: TOKEN.toLowerCase(), leaseMs: 30_000 },
    ];
    const { lost, claimed } = await repository.completeMany(claims, 30_000);
    expect(lost.map((claim) => claim.id)).toEqual(['9']);
    expect(claimed).toMatchObject([{ id: '2', token: TOKEN.toLowerCase(), key: 'order-1', inverted: false }]);
    expect(fake.queries()[0].inputs.map((input) => input.value)).toEqual([
      `["1","9"]`,
      `["${TOKEN.toLowerCase()}","${TOKEN.toLowerCase()}"]`,
      30_000,
      true,
    ]);
    // A request that produced no result set: TypeORM's records are undefined, read as no rows.
    responses.renewManyOutbox = () => ({});
    expect(await repository.renewMany(claims)).toEqual([]);
  });
});

describe('QueueBoxModule on a SQL Server DataSource (fake mssql driver)', () => {
  beforeEach(() => Logger.overrideLogger(false));

  it('starts, enqueues, claims, publishes and fences through the call pattern', async () => {
    const sent = new Set<string>();
    let inserted = false;
    let claimed = false;
    const fake = createFakeMssql({
      connections: 'reuse',
      respond: (call) => {
        switch (nameOf(call)) {
          case 'startupProbe':
            return { recordset: [{ compatibility_level: 160, read_committed_snapshot: true }] };
          case 'tableColumns':
            return { recordset: tableColumnRows(migratedTables) };
          case 'insertOutboxOne':
            return { recordset: [{ id: '1', message_id: String(call.inputs[0].value).toUpperCase() }] };
          case 'lock':
            return { recordset: [{ granted: 0 }] };
          case 'claimOutbox': {
            // The row is claimable once, after its insert (the fake runs no SQL: it plays the table).
            const take = inserted && !claimed;
            claimed ||= take;
            return { recordset: claimRows(take ? [outboxRow('1')] : []) };
          }
          case 'completeOutbox':
            sent.add('1');
            return { recordset: [{ outcome: 'done', id: '1' }] };
          case 'probeOutbox':
            return { recordset: inserted && !claimed ? [{ due: true }] : [] };
          case 'renewManyOutbox':
          case 'reclaimOutbox':
          case 'outboxBacklog':
          case 'inboxBacklog':
            return { recordset: [] };
          default:
            return undefined;
        }
      },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'mssql',
          host: 'fake',
          username: 'u',
          password: 'p',
          database: 'app',
          driver: fake.driver,
        }),
        QueueBoxModule.forRoot({
          destinations: { sink: { type: 'custom', publisher: RecordingPublisher } },
          outbox: { pollIntervalMs: 20 },
        }),
      ],
      providers: [RecordingPublisher],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const outbox = app.get(OutboxService);
      const enqueued = await outbox.enqueue({ destination: 'sink', key: 'order-1', payload: { n: 1 } });
      inserted = true;
      expect(enqueued).toEqual({ id: '1', messageId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const publisher = app.get(RecordingPublisher);
      await waitFor(() => sent.has('1'), 5_000, 'the row marked sent');
      expect(publisher.published.map((message) => [message.id, message.messageId, message.key])).toEqual([
        ['1', MESSAGE_ID.toLowerCase(), 'order-1'],
      ]);
      // The mark is fenced by the claim's token, in autocommit.
      const mark = fake.queries().find((query) => nameOf(query) === 'completeOutbox')!;
      expect(mark.inTransaction).toBe(false);
      expect(mark.inputs[1].value).toBe(`["${TOKEN.toLowerCase()}"]`);
    } finally {
      await app.close();
    }
    // Read once the app stopped: the poller claims again on every poll, and a claim may be open until then.
    const names = fake.queries().map(nameOf);
    // The database's probe, then the check of the tables, before anything else.
    expect(names.slice(0, 2)).toEqual(['startupProbe', 'tableColumns']);
    expect(names.filter((name) => name.startsWith('unknown'))).toEqual([]);
    // Every claim ran after its lock, in a READ COMMITTED transaction of its own.
    const claims = fake
      .transactions()
      .filter((transaction) => transaction.queries.some((query) => nameOf(query) === 'claimOutbox'));
    expect(claims.length).toBeGreaterThan(0);
    for (const transaction of claims) {
      expect(transaction.queries.map(nameOf)).toEqual(['lock', 'claimOutbox']);
      expect(transaction).toMatchObject({ isolation: 'READ_COMMITTED', end: 'committed' });
    }
  });

  it('refuses a database below compatibility level 130 at start-up, naming the level', async () => {
    const fake = createFakeMssql({
      respond: (call) =>
        nameOf(call) === 'startupProbe'
          ? { recordset: [{ compatibility_level: 120, read_committed_snapshot: false }] }
          : { recordset: [] },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'mssql',
          host: 'fake',
          username: 'u',
          password: 'p',
          database: 'app',
          driver: fake.driver,
        }),
        QueueBoxModule.forRoot({ destinations: {}, workers: { enabled: false } }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(UnsupportedDatabaseError);
    await expect(app.init()).rejects.toThrow(/compatibility level is 120/);
    await app.close().catch(() => undefined);
  });

  it('refuses tables that are missing or lack a column at start-up, naming QueueBoxSqlServerMigrations; the check binds the names as sysname', async () => {
    const start = async (tables: { outbox?: readonly string[]; inbox?: readonly string[] }, schema?: string) => {
      const fake = createFakeMssql({
        respond: (call) => {
          if (nameOf(call) === 'startupProbe')
            return { recordset: [{ compatibility_level: 160, read_committed_snapshot: false }] };
          if (call.sql === new StatementCatalog(mssqlDialect, resolveOptions({ schema }).tables).tableColumns().sql)
            return { recordset: tableColumnRows(tables) };
          return undefined;
        },
      });
      const moduleRef = await Test.createTestingModule({
        imports: [
          TypeOrmModule.forRoot({
            type: 'mssql',
            host: 'fake',
            username: 'u',
            password: 'p',
            database: 'app',
            driver: fake.driver,
          }),
          QueueBoxModule.forRoot({ schema, destinations: {}, workers: { enabled: false } }),
        ],
      }).compile();
      const app = moduleRef.createNestApplication({ logger: false });
      const error = await app.init().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await app.close().catch(() => undefined);
      return { error, check: fake.queries().find((query) => query.sql.includes('sys.columns')) };
    };

    const missing = await start({});
    expect(missing.error).toBeInstanceOf(MissingMigrationsError);
    expect((missing.error as Error).message).toContain(
      'SQL Server database (looked up without a schema, as the "schema" option is not set): table queuebox_outbox_messages does not exist; table queuebox_inbox_messages does not exist',
    );
    expect((missing.error as Error).message).toContain('QueueBoxSqlServerMigrations from "queuebox/migrations"');
    expect(missing.error).toMatchObject({
      migrations: ['QueueBoxOutbox1764460800000', 'QueueBoxInbox1764547200000', 'QueueBoxSchemaV31796515200000'],
    });
    expect(missing.check?.inputs).toEqual([
      { name: '0', type: { type: 'nvarchar', length: 128 }, value: 'queuebox_outbox_messages' },
      { name: '1', type: { type: 'nvarchar', length: 128 }, value: 'queuebox_inbox_messages' },
    ]);

    const older = await start(
      { outbox: OUTBOX_COLUMNS, inbox: INBOX_COLUMNS.filter((column) => column !== 'ordering_key') },
      'messaging',
    );
    expect(older.error).toMatchObject({
      migrations: [expect.stringMatching(/^QueueBoxInboxMessaging\w*1764547200000$/)],
      problems: ['table messaging.queuebox_inbox_messages has no column ordering_key'],
    });
    expect((older.error as Error).message).toContain(
      `createQueueBoxMigrations({ type: 'mssql', schema: 'messaging' })`,
    );
    expect(older.check?.inputs[2]).toEqual({ name: '2', type: { type: 'nvarchar', length: 128 }, value: 'messaging' });

    expect((await start(migratedTables)).error).toBeUndefined();
  });

  it('refuses a requestTimeout shorter than the claim lock’s wait, naming the option', () => {
    const driver = createFakeMssql().driver;
    const dataSource = new DataSource({ type: 'mssql', host: 'fake', driver, requestTimeout: 5_000 });
    expect(() => resolveDialect(dataSource, tables)).toThrow(InvalidQueueBoxOptionsError);
    expect(() => resolveDialect(dataSource, tables)).toThrow(/requestTimeout is 5000 ms/);
    expect(
      resolveDialect(new DataSource({ type: 'mssql', host: 'fake', driver, requestTimeout: 0 }), tables).type,
    ).toBe('mssql');
    expect(resolveDialect(new DataSource({ type: 'mssql', host: 'fake', driver }), tables).type).toBe('mssql');
  });
});
