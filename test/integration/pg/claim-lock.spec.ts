import { describe, expect, it } from 'vitest';
import type { DataSource, QueryRunner } from 'typeorm';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { QueueBoxTable, SqlStatement } from '../../../lib/database/sql-dialect.interface.js';
import { untilDatabase } from '../../fixtures/db-clock.js';
import { claimInbox, claimOutbox, claimPull, insertRows } from '../../fixtures/outbox-rows.js';
import { useTwoClaimers } from '../../fixtures/two-claimers.js';

/**
 * The out-of-order-commit window (contributing/claim-sql.md), replayed step by step: producer P takes
 * the older id of key K but commits after the younger row was claimed by X, whose claim
 * transaction is still open when Y claims. Outbox and pull: the lock is an option (off by
 * default). Inbox relay: its lock, always taken.
 */
describe('claim locks: producers of one key committing out of id order', () => {
  const claimers = useTwoClaimers();

  const run = async (runner: QueryRunner | DataSource, statement: SqlStatement) =>
    runner.query(statement.sql, [...statement.params]);

  async function openRunner(): Promise<QueryRunner> {
    const runner = claimers.main.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    return runner;
  }

  async function insert(table: QueueBoxTable, idempotencyKey: string, runner?: QueryRunner): Promise<string> {
    if (table === 'outbox') return (await insertRows(claimers.main, claimers.schema, ['K'], runner))[0];
    const rows = await run(
      runner ?? claimers.main,
      claimers.dialect.insertInbox({ source: 's', idempotencyKey, key: 'K', headers: '{}', payload: '1' }),
    );
    return String(rows[0].id);
  }

  /** The three claims: outbox, inbox relay, and pull (which shares the inbox table). */
  type Claimer = QueueBoxTable | 'pull';
  const tableOf = (claimer: Claimer): QueueBoxTable => (claimer === 'pull' ? 'inbox' : claimer);

  /** The dialect's plan of a claim with its lock: the lock's statements, then the claim. */
  const claimPlan = (claimer: Claimer) =>
    claimer === 'outbox'
      ? claimers.dialect.claimOutbox(['d'], new WalkCursor().request(10, 60_000), { lock: true })
      : claimer === 'inbox'
        ? claimers.dialect.claimInbox(['s'], new WalkCursor(['s']).request(10, 60_000))
        : claimers.dialect.claimPull('s', new WalkCursor(['s']).request(10, 60_000), { lock: true });

  const lockStatements = (claimer: Claimer): SqlStatement[] => {
    const { lock } = claimPlan(claimer);
    return lock ? [...lock.setup, lock.acquire] : [];
  };

  const claimY = (claimer: Claimer, lock: boolean) =>
    claimer === 'outbox'
      ? claimOutbox(claimers.repoY, 10, 60_000, lock)
      : claimer === 'inbox'
        ? claimInbox(claimers.repoY, ['s'], 10, 60_000)
        : claimPull(claimers.repoY, 's', 10, 60_000, lock);

  async function processingIds(table: QueueBoxTable): Promise<string[]> {
    const rows = await claimers.main.query(
      `SELECT id FROM "${claimers.schema}".queuebox_${table}_messages WHERE state = 'processing' ORDER BY id`,
    );
    return rows.map((row: { id: string }) => String(row.id));
  }

  /** Until some session waits for the claim lock `name` (two-key advisory lock: objid is the name's hash). */
  const untilWaitingFor = (name: string) =>
    untilDatabase(
      claimers.main,
      {
        sql: `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = hashtext($1)::oid) AS ok`,
        params: [name],
      },
      `a claimer waiting for ${name}`,
    );

  async function replay(claimer: Claimer, lock: boolean) {
    const table = tableOf(claimer);
    const producer = await openRunner();
    const older = await insert(table, 'older', producer);
    const younger = await insert(table, 'younger');
    // X: (lock,) claim, and keep the claim transaction open.
    const x = await openRunner();
    if (lock) for (const statement of lockStatements(claimer)) await run(x, statement);
    // The claim statement's first row carries its progress; claimed rows have an id.
    const xRows = ((await run(x, claimPlan(claimer).claim)) as { id: string | null }[]).filter(
      (row) => row.id !== null,
    );
    expect(xRows.map((row) => String(row.id))).toEqual([younger]);
    await producer.commitTransaction();
    await producer.release();
    // Y claims while X's claim is uncommitted. With the lock, Y must be seen waiting for it
    // before X commits; without it, Y's claim does not wait for anything.
    const y = claimY(claimer, lock);
    if (lock) await untilWaitingFor(lockStatements(claimer).at(-1)!.params[0] as string);
    else await y;
    await x.commitTransaction();
    await x.release();
    return { older, younger, yClaimed: (await y).map((row) => String(row.id)) };
  }

  it('outbox without the claim lock: the window is real, two rows of the key end up in flight', async () => {
    const { older, younger, yClaimed } = await replay('outbox', false);
    expect(yClaimed).toEqual([older]);
    expect(await processingIds('outbox')).toEqual([older, younger].sort((p, q) => Number(p) - Number(q)));
  });

  it('outbox with the claim lock (its own statement before the claim): one row of the key in flight', async () => {
    const { younger, yClaimed } = await replay('outbox', true);
    expect(yClaimed).toEqual([]);
    expect(await processingIds('outbox')).toEqual([younger]);
  });

  it('pull without the claim lock: two rows of the aggregate end up in flight', async () => {
    const { older, younger, yClaimed } = await replay('pull', false);
    expect(yClaimed).toEqual([older]);
    expect(await processingIds('inbox')).toEqual([older, younger].sort((p, q) => Number(p) - Number(q)));
  });

  it('pull with the per-source claim lock: one row of the aggregate in flight', async () => {
    const { younger, yClaimed } = await replay('pull', true);
    expect(yClaimed).toEqual([]);
    expect(await processingIds('inbox')).toEqual([younger]);
  });

  it('inbox relay, whose claim always takes the lock: one row of the aggregate in flight', async () => {
    const { younger, yClaimed } = await replay('inbox', true);
    expect(yClaimed).toEqual([]);
    expect(await processingIds('inbox')).toEqual([younger]);
  });
});
