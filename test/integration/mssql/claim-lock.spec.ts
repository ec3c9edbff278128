import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DataSource, QueryRunner } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { QueueBoxTable, SqlDialect, SqlStatement } from '../../../lib/database/sql-dialect.interface.js';
import type { ClaimResult } from '../../../lib/database/statement-results.js';
import { createTestSchema, describeWithDatabase, openDataSource, sqlServerDatabase } from '../../fixtures/database.js';
import { untilDatabase } from '../../fixtures/db-clock.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * The out-of-order-commit window (contributing/claim-sql.md) replayed step by step on SQL Server,
 * where every claim takes its lock (pg/claim-lock.spec.ts replays it on PostgreSQL, with the lock
 * on and off): producer P takes the older id of key K but commits after the younger row was
 * claimed by X, whose claim transaction is still open when Y claims. Y must wait for X's
 * application lock, then see X's row in flight and claim nothing of K.
 */
describeWithDatabase('SQL Server claim locks: producers of one key committing out of id order', () => {
  const claimers = `qb-claimers-${randomBytes(4).toString('hex')}`;
  let schema: string;
  let main: DataSource;
  let other: DataSource;
  let dialect: SqlDialect;
  let repoY: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema();
    main = await openDataSource(schema);
    // Y's connections carry a name of their own, to find Y's lock requests among the server's.
    other = await openDataSource(schema, 10, { applicationName: claimers });
    dialect = repositoryFor(main, schema).dialect;
    repoY = repositoryFor(other, schema).repository;
  });
  beforeEach(async () => {
    await sqlServerDatabase().truncate(main, schema, ['outbox', 'inbox']);
  });
  afterAll(async () => {
    await main?.destroy();
    await other?.destroy();
  });

  const run = async <Result>(runner: QueryRunner, statement: SqlStatement<Result>): Promise<Result> =>
    statement.decode(await dialect.execute(runner, statement));

  async function openRunner(): Promise<QueryRunner> {
    const runner = main.createQueryRunner();
    await runner.connect();
    await runner.startTransaction('READ COMMITTED');
    return runner;
  }

  /**
   * An inbox row goes in with a plain INSERT, not the receive's: the receive's duplicate check
   * holds a key-range lock to the end of the transaction, which would make the younger row's
   * insert wait for the producer (the inbox dedup of contributing/mssql-sql.md), a wait this
   * replay is not about.
   */
  async function insert(table: QueueBoxTable, idempotencyKey: string, runner?: QueryRunner): Promise<string> {
    if (table === 'outbox') return (await insertRows(main, schema, ['K'], runner))[0];
    return sqlServerDatabase().insertInboxRow(runner ?? main, schema, { source: 's', idempotencyKey, key: 'K' });
  }

  type Claimer = QueueBoxTable | 'pull';
  const tableOf = (claimer: Claimer): QueueBoxTable => (claimer === 'pull' ? 'inbox' : claimer);

  const claimPlan = (claimer: Claimer) =>
    claimer === 'outbox'
      ? dialect.claimOutbox(['d'], new WalkCursor().request(10, 60_000), { lock: true })
      : claimer === 'inbox'
        ? dialect.claimInbox(['s'], new WalkCursor(['s']).request(10, 60_000))
        : dialect.claimPull('s', new WalkCursor(['s']).request(10, 60_000), { lock: true });

  /** Y's claim, as a fresh worker makes it; its `skipped` says whether it gave up on the lock. */
  const claimY = (claimer: Claimer): Promise<ClaimResult<{ id: string }>> =>
    claimer === 'outbox'
      ? repoY.claimOutbox(['d'], new WalkCursor().request(10, 60_000), { lock: true })
      : claimer === 'inbox'
        ? repoY.claimInbox(['s'], new WalkCursor(['s']).request(10, 60_000))
        : repoY.claimPull('s', new WalkCursor(['s']).request(10, 60_000), { lock: true });

  async function processingIds(table: QueueBoxTable): Promise<string[]> {
    const rows =
      table === 'outbox'
        ? await sqlServerDatabase().outboxRows(main, schema)
        : await sqlServerDatabase().inboxRows(main, schema);
    return rows.filter((row) => row.state === 'processing').map((row) => row.id);
  }

  /** Until one of Y's sessions waits for an application lock. */
  const untilYWaits = () =>
    untilDatabase(
      main,
      {
        sql: `SELECT CAST(CASE WHEN EXISTS (
                SELECT 1 FROM sys.dm_tran_locks l JOIN sys.dm_exec_sessions s ON s.session_id = l.request_session_id
                WHERE l.resource_type = 'APPLICATION' AND l.request_status = 'WAIT' AND s.program_name = @0) THEN 1 ELSE 0 END AS bit) AS ok`,
        params: [claimers],
      },
      'Y waiting for the claim lock',
    );

  async function replay(claimer: Claimer) {
    const table = tableOf(claimer);
    const producer = await openRunner();
    const older = await insert(table, 'older', producer);
    const younger = await insert(table, 'younger');
    // X: lock, claim, and keep the claim transaction open. With RCSI off, X's claim may wait for
    // the producer's uncommitted row (a locking read) and then take the older row; with RCSI on
    // it reads past it and takes the younger one. Either way one row of K.
    const x = await openRunner();
    const xSession = Number(((await x.query('SELECT @@SPID AS spid')) as { spid: number }[])[0].spid);
    const plan = claimPlan(claimer);
    expect(plan.lock).toBeDefined();
    for (const statement of plan.lock!.setup) await run(x, statement);
    expect(await run(x, plan.lock!.acquire)).toBe(true);
    let settled = false;
    const claim = plan.claim as SqlStatement<{ rows: { id: string }[] }>;
    const xClaim = run(x, claim).finally(() => (settled = true));
    await waitFor(async () => settled || (await blocked(xSession)), 10_000, 'X to claim, or to wait for the producer');
    await producer.commitTransaction();
    await producer.release();
    const xClaimed = (await xClaim).rows.map((row) => row.id);
    expect(
      xClaimed.length === 1 && [older, younger].includes(xClaimed[0]),
      `X claimed ${JSON.stringify(xClaimed)}`,
    ).toBe(true);
    // Y claims while X's claim is uncommitted: it must be seen waiting for X's lock.
    const y = claimY(claimer);
    await untilYWaits();
    await x.commitTransaction();
    await x.release();
    const yResult = await y;
    // Granted after X's commit, not given up on (a lock wait past 10 s is a skipped, empty claim).
    expect(yResult.skipped).toBeUndefined();
    return { xClaimed, yClaimed: yResult.rows.map((row) => row.id) };
  }

  /** Whether session `spid` waits for a lock another session holds. */
  const blocked = async (spid: number) =>
    Number(
      (
        (await main.query(
          'SELECT COUNT(*) AS n FROM sys.dm_exec_requests WHERE session_id = @0 AND blocking_session_id <> 0',
          [spid],
        )) as { n: number }[]
      )[0].n,
    ) > 0;

  for (const claimer of ['outbox', 'pull', 'inbox'] as const) {
    it(`${claimer === 'inbox' ? 'inbox relay' : claimer}: Y waits for X's lock, then leaves the key alone: one row of it in flight`, async () => {
      const { xClaimed, yClaimed } = await replay(claimer);
      expect(yClaimed).toEqual([]);
      expect(await processingIds(tableOf(claimer))).toEqual(xClaimed);
    });
  }
});
