import { describe, expect, it } from 'vitest';
import type { QueryRunner } from 'typeorm';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { SqlStatement } from '../../../lib/database/sql-dialect.interface.js';
import { claimOutbox, claimPull, insertInboxRow, insertRows } from '../../fixtures/outbox-rows.js';
import { testDatabase } from '../../fixtures/database.js';
import { useTwoClaimers } from '../../fixtures/two-claimers.js';

/**
 * Two claims of unordered rows running at once (two lanes of one worker, or two replicas) take
 * different rows: the second skips the rows the first holds and takes the next ones, instead of
 * picking the same oldest rows as its candidates, skipping them all and coming back empty (which
 * made concurrent claims take turns). Claim X is held open in a transaction while Y claims.
 */
describe('claims running at once take different unordered rows', () => {
  const claimers = useTwoClaimers();

  /** Runs claim `statement` in a transaction left open (its row locks held); returns the ids it claimed. */
  async function claimAndHold(statement: SqlStatement): Promise<{ runner: QueryRunner; ids: string[] }> {
    const runner = claimers.main.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    // The claim statement's first row carries its progress; claimed rows have an id.
    const rows = (await runner.query(statement.sql, [...statement.params])) as { id: string | null }[];
    return { runner, ids: rows.filter((row) => row.id !== null).map((row) => String(row.id)) };
  }

  const sorted = (ids: readonly string[]) => [...ids].sort((p, q) => Number(p) - Number(q));

  it('outbox: the second claim takes the next rows while the first holds the oldest', async () => {
    const ids = await insertRows(
      claimers.main,
      claimers.schema,
      Array.from({ length: 20 }, () => null),
    );
    const x = await claimAndHold(
      claimers.dialect.claimOutbox(['d'], new WalkCursor().request(10, 60_000), { lock: false }).claim,
    );
    try {
      expect(sorted(x.ids)).toEqual(ids.slice(0, 10));
      const y = (await claimOutbox(claimers.repoY, 10, 60_000)).map((row) => String(row.id));
      expect(sorted(y)).toEqual(ids.slice(10));
    } finally {
      await x.runner.commitTransaction();
      await x.runner.release();
    }
  });

  it('outbox over two destinations: a claim locks only the unordered rows it claims, and the second claim takes the next ones', async () => {
    // Unordered rows of d and e, interleaved: d's first is the oldest.
    for (let i = 0; i < 20; i += 1) {
      for (const destination of ['d', 'e'])
        await testDatabase().seedOutbox(claimers.main, claimers.schema, { key: null, count: 1, destination });
    }
    const x = await claimAndHold(
      claimers.dialect.claimOutbox(['d', 'e'], new WalkCursor().request(10, 60_000), { lock: false }).claim,
    );
    try {
      expect(x.ids).toHaveLength(10);
      // Rows X holds (claimed or only locked) carry its transaction id as xmax: only the ten it claimed.
      const [{ xid }] = await x.runner.query('SELECT txid_current()::text AS xid');
      const [{ held }] = await claimers.other.query(
        `SELECT count(*)::integer AS held FROM ${testDatabase().table(claimers.schema, 'outbox')} WHERE xmax::text = $1`,
        [xid],
      );
      expect(held).toBe(10);
      const y = (await claimOutbox(claimers.repoY, 10, 60_000, false, ['d', 'e'])).map((row) => String(row.id));
      expect(y).toHaveLength(10);
      expect(y.filter((id) => x.ids.includes(id))).toEqual([]);
    } finally {
      await x.runner.commitTransaction();
      await x.runner.release();
    }
  });

  it('pull: the second claim takes the next rows while the first holds the oldest', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1)
      ids.push(await insertInboxRow(claimers.main, claimers.schema, { source: 's', idempotencyKey: `k${i}` }));
    const x = await claimAndHold(
      claimers.dialect.claimPull('s', new WalkCursor(['s']).request(10, 60_000), { lock: false }).claim,
    );
    try {
      expect(sorted(x.ids)).toEqual(ids.slice(0, 10));
      const y = (await claimPull(claimers.repoY, 's', 10, 60_000, false)).map((row) => String(row.id));
      expect(sorted(y)).toEqual(ids.slice(10));
    } finally {
      await x.runner.commitTransaction();
      await x.runner.release();
    }
  });
});
