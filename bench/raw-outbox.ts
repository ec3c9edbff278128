import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { outboxTable } from './bench-schema.js';
import { StatementTimer, sleep } from './bench-stats.js';

/** Lease of the baselines' claims: long enough that nothing expires during a run. */
export const RAW_LEASE_MS = 300_000;

/** A claimed row as the baselines read it. */
export interface RawClaimedRow {
  id: string;
  message_id: string;
  destination: string;
  ordering_key: string | null;
  headers: Record<string, string>;
  payload: string;
  claim_token: string;
  attempts: number;
}

/** The SQL a baseline loop runs: claim ($1 batch, $2 lease ms) and batched fenced complete ($1 ids, $2 tokens). */
export interface RawStatements {
  name: string;
  claim: string;
  completeMany: string;
}

/**
 * A raw SKIP LOCKED claim ($1 batch, $2 lease ms) of the oldest due pending rows that pass
 * `filter` (on alias `o`), written the way a hand-rolled loop would.
 */
function skipLockedClaim(t: string, filter: string): string {
  return `
WITH cand AS (
  SELECT o.id FROM ${t} o
  WHERE o.state = 'pending' AND o.next_attempt_at <= statement_timestamp()
    AND ${filter}
  ORDER BY o.id
  LIMIT $1
  FOR UPDATE OF o SKIP LOCKED
)
UPDATE ${t} m
SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
    lease_expires_at = statement_timestamp() + $2::integer * interval '1 millisecond', attempts = m.attempts + 1
FROM cand WHERE m.id = cand.id
RETURNING m.id, m.message_id, m.destination, m.ordering_key, m.headers, m.payload, m.claim_token, m.attempts`;
}

/**
 * The reference statements of sql.md §2.2 (claim with FOR UPDATE SKIP LOCKED and the two
 * anti-joins) and §2.5 (one fenced UPDATE over unnest of ids and tokens), written out by hand.
 */
export function referenceStatements(schema: string): RawStatements {
  const t = outboxTable(schema);
  return {
    name: 'sql.md 2.2 + 2.5',
    claim: skipLockedClaim(
      t,
      `NOT EXISTS (SELECT 1 FROM ${t} b WHERE b.ordering_key = o.ordering_key AND b.id < o.id AND b.state IN ('pending','processing'))
    AND NOT EXISTS (SELECT 1 FROM ${t} p WHERE p.ordering_key = o.ordering_key AND p.state = 'processing')`,
    ),
    completeMany: `
UPDATE ${t} m SET state = 'sent', finished_at = statement_timestamp(), lease_expires_at = NULL
FROM unnest($1::bigint[], $2::uuid[]) AS c(id, tok)
WHERE m.id = c.id AND m.state = 'processing' AND m.claim_token = c.tok AND m.lease_expires_at > statement_timestamp()
RETURNING m.id`,
  };
}

/**
 * The raw loops written for QueueBox's v2 indexes, as someone would hand-write them for one kind
 * of row (the sql.md 2.2 claim's anti-joins have no index of their own on the v2 table, and a
 * claim that mixes keyed and unkeyed rows can use neither partial index, so it walks the primary
 * key past every finished row). The completion is §2.5's.
 *
 * - `keyed` false: a plain SKIP LOCKED loop over the oldest unkeyed pending rows (`unkeyed_pending_ix`).
 * - `keyed` true: the raw head-of-key loop: the oldest keyed pending rows (`keyed_pending_ix`), each
 *   only when no older pending row and no processing row of its (destination, key) exists, probed
 *   through `key_pending_ix` and `processing_ix`.
 */
export function handWrittenStatements(schema: string, keyed: boolean): RawStatements {
  const t = outboxTable(schema);
  const filter = keyed
    ? `o.ordering_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${t} b WHERE b.destination = o.destination AND b.ordering_key = o.ordering_key AND b.state = 'pending' AND b.id < o.id)
    AND NOT EXISTS (SELECT 1 FROM ${t} p WHERE p.destination = o.destination AND p.ordering_key = o.ordering_key AND p.state = 'processing')`
    : `o.ordering_key IS NULL`;
  return {
    name: keyed ? 'head-of-key SKIP LOCKED' : 'SKIP LOCKED',
    claim: skipLockedClaim(t, filter),
    completeMany: referenceStatements(schema).completeMany,
  };
}

/** Timers of one baseline run. */
export interface RawLoopStats {
  claim: StatementTimer;
  complete: StatementTimer;
  emptyClaims: number;
}

export function newRawLoopStats(): RawLoopStats {
  return { claim: new StatementTimer(), complete: new StatementTimer(), emptyClaims: 0 };
}

/** What a baseline does with each claimed row: a no-op publish. */
export type RawPublish = (row: RawClaimedRow) => Promise<void>;

/** One claim, the publishes of its rows, one batched complete. Returns the rows claimed and marked. */
export async function rawCycle(
  pool: pg.Pool,
  sql: RawStatements,
  batch: number,
  publish: RawPublish,
  stats: RawLoopStats,
): Promise<{ claimed: number; sent: number }> {
  const claimed = await stats.claim.time(
    () => pool.query<RawClaimedRow>(sql.claim, [batch, RAW_LEASE_MS]),
    (result) => result.rows.length,
  );
  const rows = claimed.rows;
  if (rows.length === 0) {
    stats.emptyClaims += 1;
    return { claimed: 0, sent: 0 };
  }
  await Promise.all(rows.map((row) => publish(row)));
  const done = await stats.complete.time(
    () => pool.query(sql.completeMany, [rows.map((row) => row.id), rows.map((row) => row.claim_token)]),
    (result) => result.rowCount ?? 0,
  );
  return { claimed: rows.length, sent: done.rowCount ?? 0 };
}

/**
 * The drain baseline: `loops` concurrent loops of claim(batch) + batched complete until `total`
 * rows are sent. A loop whose claim comes back empty (the other loop holds every claimable head)
 * sleeps 1 ms.
 */
export async function rawDrain(
  pool: pg.Pool,
  sql: RawStatements,
  opts: { loops: number; batch: number; total: number },
  publish: RawPublish,
): Promise<{ ms: number; stats: RawLoopStats }> {
  const stats = newRawLoopStats();
  let sent = 0;
  const started = performance.now();
  const loop = async (): Promise<void> => {
    while (sent < opts.total) {
      const result = await rawCycle(pool, sql, opts.batch, publish, stats);
      sent += result.sent;
      if (result.claimed === 0 && sent < opts.total) await sleep(1);
    }
  };
  await Promise.all(Array.from({ length: opts.loops }, loop));
  return { ms: performance.now() - started, stats };
}

/** Wakes a sleeping loop; a wake that arrives while the loop works is kept for its next sleep. */
export class Waker {
  private woken = false;
  private wakeUp?: () => void;

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Sleeps until woken or `ms`, unless a wake arrived since the last sleep. */
  async sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
    this.woken = false;
  }
}

/**
 * The latency baseline's consumer: one loop that claims, publishes, completes, and claims again
 * at once while claims come back full; after a short claim it sleeps until the producer wakes
 * it (in process, right after each commit) or `pollMs` passes.
 */
export function startRawConsumer(
  pool: pg.Pool,
  sql: RawStatements,
  opts: { batch: number; pollMs: number },
  publish: RawPublish,
  waker: Waker,
): { stats: RawLoopStats; stop(): Promise<void> } {
  const stats = newRawLoopStats();
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const result = await rawCycle(pool, sql, opts.batch, publish, stats);
      if (result.claimed < opts.batch && !stopped) await waker.sleep(opts.pollMs);
    }
  })();
  return {
    stats,
    async stop() {
      stopped = true;
      waker.wake();
      await running;
    },
  };
}
