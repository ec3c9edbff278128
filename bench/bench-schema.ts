import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createQueueBoxSchema } from '../tools/queuebox-schema.js';
import { DEFAULT_OUTBOX_TABLE } from '../lib/shared/queuebox.constants.js';

/** Payload of every bench message: a JSON text of about 200 bytes, like the sql.md pgbench runs. */
export function benchPayload(seq: number): { seq: number; pad: string } {
  return { seq, pad: 'x'.repeat(180) };
}

/** The soak's payload: the same size, with the time its producer's transaction began (epoch ms; 0 for seeded rows). */
export function soakPayload(seq: number, at: number): { seq: number; at: number; pad: string } {
  return { seq, at, pad: 'x'.repeat(160) };
}

/** Creates a fresh schema with QueueBox's tables (its own migrations); returns the schema name. */
export async function createBenchSchema(url: string, label: string): Promise<string> {
  const schema = `qbb_${label}_${randomBytes(4).toString('hex')}`;
  await createQueueBoxSchema(url, schema, 'queuebox_bench_migrations');
  return schema;
}

export async function dropBenchSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
}

/** The schema-qualified outbox table. */
export function outboxTable(schema: string): string {
  return `"${schema}"."${DEFAULT_OUTBOX_TABLE}"`;
}

/**
 * Inserts `total` pending rows in one statement, ids round-robin over `keys` ordering keys
 * (`keys` = 0: NULL keys, unordered), then VACUUM ANALYZE so that every run starts from the
 * same planner statistics.
 */
export async function seedOutbox(pool: pg.Pool, schema: string, total: number, keys: number): Promise<void> {
  const payload = JSON.stringify(benchPayload(0));
  await pool.query(
    `INSERT INTO ${outboxTable(schema)} (message_id, destination, ordering_key, headers, payload)
     SELECT gen_random_uuid(), 'noop', CASE WHEN $1::integer = 0 THEN NULL ELSE 'key-' || (g % GREATEST($1::integer, 1)) END, '{}'::jsonb, $2
     FROM generate_series(0, $3::integer - 1) AS g`,
    [keys, payload, total],
  );
  await pool.query(`VACUUM ANALYZE ${outboxTable(schema)}`);
}

export async function countByState(pool: pg.Pool, schema: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ state: string; n: number }>(
    `SELECT state, count(*)::integer AS n FROM ${outboxTable(schema)} GROUP BY state`,
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

export function rawPool(url: string, max: number, applicationName?: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max, ...(applicationName ? { application_name: applicationName } : {}) });
}
