import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DataSource, QueryRunner } from 'typeorm';
import type { PostgresDialect } from '../../../lib/dialects/postgres/postgres.dialect.js';
import type { ClaimRepository } from '../../../lib/claims/claim.repository.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';

/**
 * The out-of-order-commit window (sql.md 2.2 item 5), replayed step by step: producer P takes
 * the older id of key K but commits after the younger row was claimed by X, whose claim
 * transaction is still open when Y claims.
 */
describe('outbox claim lock: producers of one key committing out of id order', () => {
  let schema: string;
  let main: DataSource;
  let other: DataSource;
  let dialect: PostgresDialect;
  let repoY: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema(inject('pgUrl'));
    main = await openDataSource(inject('pgUrl'), schema);
    other = await openDataSource(inject('pgUrl'), schema);
    dialect = repositoryFor(main, schema).dialect;
    repoY = repositoryFor(other, schema).repository;
  });
  beforeEach(async () => {
    await main.query(`TRUNCATE "${schema}".queuebox_outbox_messages`);
  });
  afterAll(async () => {
    await main?.destroy();
    await other?.destroy();
  });

  async function openRunner(): Promise<QueryRunner> {
    const runner = main.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    return runner;
  }

  /** X: (lock,) claim, and keep the claim transaction open. */
  async function claimAndHold(withLock: boolean): Promise<{ runner: QueryRunner; ids: string[] }> {
    const runner = await openRunner();
    if (withLock) for (const statement of dialect.claimLock('outbox')) await runner.query(statement.sql, [...statement.params]);
    const claim = dialect.claimOutbox(10, 60_000);
    const rows = (await runner.query(claim.sql, [...claim.params])) as [{ id: string }[], number];
    return { runner, ids: rows[0].map((row) => String(row.id)) };
  }

  async function processingIds(): Promise<string[]> {
    const rows = await main.query(`SELECT id FROM "${schema}".queuebox_outbox_messages WHERE state = 'processing' ORDER BY id`);
    return rows.map((row: { id: string }) => String(row.id));
  }

  async function replay(withLock: boolean): Promise<{ older: string; younger: string; yClaimed: string[] }> {
    const producer = await openRunner();
    const [older] = await insertRows(main, schema, ['K'], producer);
    const [younger] = await insertRows(main, schema, ['K']);
    const x = await claimAndHold(withLock);
    expect(x.ids).toEqual([younger]);
    await producer.commitTransaction();
    await producer.release();
    // Y claims while X's claim is uncommitted. With the lock, Y waits for X's commit.
    const y = repoY.claimOutbox(10, 60_000, { lock: withLock });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await x.runner.commitTransaction();
    await x.runner.release();
    const yClaimed = (await y).map((row) => String(row.id));
    return { older, younger, yClaimed };
  }

  it('without the lock the window is real: two rows of the key end up in flight', async () => {
    const { older, younger, yClaimed } = await replay(false);
    expect(yClaimed).toEqual([older]);
    expect(await processingIds()).toEqual([older, younger].sort((p, q) => Number(p) - Number(q)));
  });

  it('with the lock taken in its own statement before the claim, only one row of the key is in flight', async () => {
    const { younger, yClaimed } = await replay(true);
    expect(yClaimed).toEqual([]);
    expect(await processingIds()).toEqual([younger]);
  });
});
