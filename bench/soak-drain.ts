import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { wakeChannel } from '../lib/database/dialects/postgres/notify-transport.js';
import { resolveOptions } from '../lib/config/options/resolve-options.js';
import { outboxTable, soakPayload } from './bench-schema.js';
import { sleep } from './bench-stats.js';
import type { SoakFleet } from './soak-fleet.js';

/** The longest a drain may take before the soak gives up on it (a stalled replica, a broken server). */
const DRAIN_CAP_MS = 10 * 60_000;

export interface DrainMeasurement {
  rows: number;
  ms: number;
  /** Messages per second over every replica: rows ÷ (last publish − the seed's commit). */
  rate: number;
}

/**
 * Inserts `rows` pending messages in one statement (the soak's payload, keys spread as the
 * producers spread theirs), wakes the replicas, and times them until the last one is published.
 */
async function drainOnce(
  admin: pg.Pool,
  fleet: SoakFleet,
  schema: string,
  rows: number,
  keys: number,
): Promise<DrainMeasurement> {
  const before = await fleet.status();
  const payload = JSON.stringify(soakPayload(0, 0));
  await admin.query(
    `INSERT INTO ${outboxTable(schema)} (message_id, destination, ordering_key, headers, payload)
     SELECT gen_random_uuid(), 'noop', CASE WHEN $1::integer = 0 THEN NULL ELSE 'seed-' || (g % GREATEST($1::integer, 1)) END, '{}'::jsonb, $2
     FROM generate_series(0, $3::integer - 1) AS g`,
    [keys, payload, rows],
  );
  // The rows are visible from the commit on; the replicas poll, and the wake-up spares the wait.
  const committedAt = performance.timeOrigin + performance.now();
  const channel = wakeChannel(resolveOptions({ schema }).tables, 'outbox');
  await admin.query(`SELECT pg_notify($1, 'soak-drain')`, [channel]);
  const deadline = performance.now() + DRAIN_CAP_MS;
  for (;;) {
    const status = await fleet.status();
    if (status.published - before.published >= rows) {
      const ms = status.lastPublishAt - committedAt;
      return { rows, ms, rate: (rows / ms) * 1000 };
    }
    if (performance.now() > deadline)
      throw new Error(
        `the drain of ${rows} rows did not finish within ${DRAIN_CAP_MS / 1000} s (${status.published - before.published} published)`,
      );
    if (fleet.failure) throw new Error(fleet.failure);
    await sleep(100);
  }
}

/**
 * The drain rate of the replicas as they are, on this server: a warm-up drain of a fifth of the
 * rows (JIT, pools, prepared statements, the adaptive pace), then the measured one.
 */
export async function measureDrainRate(
  admin: pg.Pool,
  fleet: SoakFleet,
  schema: string,
  rows: number,
  keys: number,
): Promise<{ warmup: DrainMeasurement; measured: DrainMeasurement }> {
  const warmup = await drainOnce(admin, fleet, schema, Math.ceil(rows / 5), keys);
  const measured = await drainOnce(admin, fleet, schema, rows, keys);
  return { warmup, measured };
}
