import type { DataSource, QueryRunner } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Claim } from '../../../lib/shared/interfaces/claim.interface.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { claimOutbox, insertRows, repositoryFor, rowState } from '../../fixtures/outbox-rows.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';

/**
 * PostgreSQL only: the outbox's `sent` marks and its claims commit without waiting for their WAL
 * flush (`outbox.asyncMarks`), by `synchronous_commit` set for the statement's own transaction
 * inside it, and never for a caller's transaction. Seen from inside a transaction that runs the
 * statement: the setting it leaves for the commit.
 */
describe('outbox: asynchronous sent marks', () => {
  let schema: string;
  let db: DataSource;
  const claimsOf = async (count: number): Promise<Claim[]> => {
    const { repository } = repositoryFor(db, schema);
    await insertRows(
      db,
      schema,
      Array.from({ length: count }, () => null),
    );
    return (await claimOutbox(repository, count, 60_000)).map((row) => ({
      component: 'outbox',
      id: row.id,
      token: row.token,
      leaseMs: 60_000,
    }));
  };

  /**
   * Runs `work` in a transaction and commits it; returns what the work returned and the
   * `synchronous_commit` the commit used (read inside the transaction, after the work).
   */
  const inTransaction = async <T>(
    work: (queryRunner: QueryRunner) => Promise<T>,
  ): Promise<{ result: T; setting: string }> => {
    const queryRunner = db.createQueryRunner();
    await queryRunner.startTransaction();
    try {
      const result = await work(queryRunner);
      const [{ synchronous_commit: setting }] = await queryRunner.query('SHOW synchronous_commit');
      await queryRunner.commitTransaction();
      return { result, setting: setting as string };
    } finally {
      if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction();
      await queryRunner.release();
    }
  };

  /** Runs the outbox completion in a transaction and returns the `synchronous_commit` its commit would use. */
  const commitSettingAfter = async (asyncCommit: boolean, claims: Claim[]): Promise<string> => {
    const { dialect, runner } = repositoryFor(db, schema);
    const { result: rows, setting } = await inTransaction((queryRunner) =>
      runner.run(dialect.completeMany('outbox', claims, undefined, asyncCommit), queryRunner.manager),
    );
    expect(rows.filter((row) => row.outcome === 'done')).toHaveLength(claims.length);
    return setting;
  };

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema, 2);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('turns synchronous_commit off for the mark’s own transaction only when asked', async () => {
    const [before] = (await db.query('SHOW synchronous_commit')) as { synchronous_commit: string }[];
    expect(before.synchronous_commit).toBe('on');
    expect(await commitSettingAfter(true, await claimsOf(3))).toBe('off');
    expect(await commitSettingAfter(false, await claimsOf(3))).toBe('on');
    // Transaction-local: the next transaction on the connection commits durably again.
    const [after] = (await db.query('SHOW synchronous_commit')) as { synchronous_commit: string }[];
    expect(after.synchronous_commit).toBe('on');
  });

  it('the outbox claim turns synchronous_commit off for its own transaction only when asked, and claims as a durable claim does', async () => {
    const { dialect } = repositoryFor(db, schema);
    const claimSettingAfter = async (asyncCommit: boolean): Promise<{ setting: string; claimed: number }> => {
      await insertRows(db, schema, [null, null]);
      const { claim } = dialect.claimOutbox(['d'], new WalkCursor().request(2, 60_000), { lock: false, asyncCommit });
      const { result: rows, setting } = await inTransaction(
        (queryRunner) => queryRunner.query(claim.sql, [...claim.params]) as Promise<{ id: string | null }[]>,
      );
      return { setting, claimed: rows.filter((row) => row.id !== null).length };
    };
    expect(await claimSettingAfter(true)).toEqual({ setting: 'off', claimed: 2 });
    expect(await claimSettingAfter(false)).toEqual({ setting: 'on', claimed: 2 });
  });

  it('writes the marks and hands each key on exactly as a durable mark does', async () => {
    const { repository } = repositoryFor(db, schema);
    const ids = await insertRows(db, schema, ['hand', 'hand', null]);
    const claimed = await claimOutbox(repository, 10, 60_000);
    const claims: Claim[] = claimed.map((row) => ({
      component: 'outbox',
      id: row.id,
      token: row.token,
      leaseMs: 60_000,
    }));
    const { lost, claimed: handedOn } = await repository.completeMany(claims, 60_000, { asyncCommit: true });
    expect(lost).toEqual([]);
    expect(handedOn.map((row) => row.id)).toEqual([ids[1]]);
    expect(await rowState(db, schema, ids[0])).toMatchObject({ state: 'sent' });
    expect(await rowState(db, schema, ids[1])).toMatchObject({ state: 'processing' });
  });

  it('never makes a caller’s transaction commit asynchronously', async () => {
    const { repository } = repositoryFor(db, schema);
    const claims = await claimsOf(2);
    const { result, setting } = await inTransaction((queryRunner) =>
      repository.completeMany(claims, undefined, { asyncCommit: true, manager: queryRunner.manager }),
    );
    expect(result.lost).toEqual([]);
    expect(setting).toBe('on');
  });
});
