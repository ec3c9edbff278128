import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { outboxTable } from './bench-schema.js';
import { sleep } from './bench-stats.js';
import type { SoakFleet } from './soak-fleet.js';

/** Producers run flat out this long; the first `RAMP_MS` of it (pools, the adaptive pace, a first backlog) are left out. */
const CARRY_MS = 60_000;
const RAMP_MS = 20_000;
/** The longest the queue may take to empty after the measurement. */
const EMPTY_CAP_MS = 10 * 60_000;

export interface CarriedRate {
  seconds: number;
  /** Messages per second the producers committed, and the replicas published, over the measured part. */
  enqueued: number;
  published: number;
}

/**
 * The rate the replicas carry while they also produce: every replica's producer runs flat out
 * (its transactions in flight at their cap) for a minute, and the publishes of the last 40 s are
 * counted. On a machine whose cores the producers share with the workers and the server, this is
 * below the drain rate of a backlog; offering a share of the drain rate there would measure a
 * queue that only grows. The queue is left empty for what follows.
 */
export async function measureCarriedRate(
  admin: pg.Pool,
  fleet: SoakFleet,
  schema: string,
  flatOut: { messagesPerSecond: number; batch: number; keys: number; maxInFlight: number },
): Promise<CarriedRate> {
  fleet.produce(flatOut.messagesPerSecond, flatOut.batch, flatOut.keys, flatOut.maxInFlight);
  await sleep(RAMP_MS);
  await fleet.windows();
  const measuredFrom = performance.now();
  await sleep(CARRY_MS - RAMP_MS);
  const windows = await fleet.windows();
  const seconds = (performance.now() - measuredFrom) / 1000;
  await fleet.stopProducing();
  const deadline = performance.now() + EMPTY_CAP_MS;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM ${outboxTable(schema)} WHERE state IN ('pending', 'processing')`,
    );
    if (rows[0].n === 0) break;
    if (performance.now() > deadline)
      throw new Error(`${rows[0].n} rows still unfinished ${EMPTY_CAP_MS / 1000} s after the carried-rate measurement`);
    if (fleet.failure) throw new Error(fleet.failure);
    await sleep(500);
  }
  return {
    seconds,
    enqueued: windows.reduce((sum, w) => sum + w.enqueued, 0) / seconds,
    published: windows.reduce((sum, w) => sum + w.published, 0) / seconds,
  };
}
