import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { postgresTexts } from '../../lib/database/dialects/postgres/postgres-statements.js';
import { createBenchSchema, outboxTable, rawPool, seedOutbox } from '../bench-schema.js';
import { settleBeforeRun } from '../bench-wal.js';
import { RunClock, finishTableDrain, poolSizeOf, type DrainOutcome, type DrainRunner } from './drain-run.js';

/** The lease of a chain's claims (long: a chain never renews). */
const CHAIN_LEASE_MS = 60_000;

interface ChainRow {
  id: string;
  claim_token: string;
}

/**
 * The floor of the hand-off design: per key, a bare loop of the very statement QueueBox's
 * completion of one row runs (the one-row form: mark the row sent, fenced, and claim the key's
 * next row; asynchronous commit, as `outbox.asyncMarks`), each answer feeding the next call, with
 * no work between, on one node-postgres connection per key. One round trip per message is all
 * the design allows a key (at most one row of it in flight), so this is the rate no consumer of
 * the design can beat on the machine; QueueBox's ratio to it is what its own per-message work
 * costs. Runs only where every key gets a connection of the pool.
 */
export const handOffChainRunner: DrainRunner = {
  name: 'hand-off floor',
  skip(spec) {
    if (spec.keys === 0) return 'no keys: there is no hand-off';
    if (spec.keys > poolSizeOf(spec))
      return `one connection per key, and ${spec.keys} keys exceed the pool of ${poolSizeOf(spec)}`;
    return undefined;
  },
  async run(ctx, spec) {
    const schema = await createBenchSchema(ctx.url, 'chain');
    await seedOutbox(ctx.admin, schema, spec.rows, spec.keys);
    const pool = rawPool(ctx.url, spec.keys);
    const clock = new RunClock(ctx);
    const table = outboxTable(schema);
    const completeOne = {
      name: `chain_${schema}`,
      text: postgresTexts.completeOne!(
        { schema, outbox: 'queuebox_outbox_messages', inbox: 'queuebox_inbox_messages' },
        'outbox',
      ),
    };
    let outcome: DrainOutcome;
    try {
      const clients = await Promise.all(Array.from({ length: spec.keys }, () => pool.connect()));
      await settleBeforeRun(ctx.admin);
      const deadline = performance.now() + spec.capMs;
      let sent = 0;
      clock.start();
      const chain = async (client: pg.PoolClient, key: string): Promise<void> => {
        let row = await claimHead(client, table, key);
        while (row && performance.now() < deadline) {
          const { rows } = await client.query<ChainRow & { outcome: string }>({
            ...completeOne,
            values: [[row.id], [row.claim_token], CHAIN_LEASE_MS, true, true],
          });
          if (rows.some((r) => r.outcome === 'done')) sent += 1;
          row = rows.find((r) => r.outcome === 'claimed');
        }
      };
      try {
        await Promise.all(clients.map((client, i) => chain(client, `key-${i}`)));
      } finally {
        for (const client of clients) client.release();
      }
      outcome = clock.stop(sent, spec.rows, `${spec.keys} chain(s), one connection each`);
    } finally {
      await pool.end();
    }
    return finishTableDrain(ctx, schema, clock, outcome);
  },
};

/** Claims the oldest row of `key` (the chain's first; the hand-off claims every later one). */
async function claimHead(client: pg.PoolClient, table: string, key: string): Promise<ChainRow | undefined> {
  const { rows } = await client.query<ChainRow>(
    `UPDATE ${table} SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
            lease_expires_at = statement_timestamp() + $2::integer * interval '1 millisecond', attempts = attempts + 1
     WHERE id = (SELECT min(id) FROM ${table} WHERE state = 'pending' AND ordering_key = $1)
     RETURNING id::text AS id, claim_token::text AS claim_token`,
    [key, CHAIN_LEASE_MS],
  );
  return rows[0];
}
