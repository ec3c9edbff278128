import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { WalkCursor } from '../lib/engine/walk-cursor.js';
import { postgresDialect } from '../lib/database/dialects/postgres/postgres.dialect.js';
import { StatementCatalog } from '../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../lib/config/options/resolve-options.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { benchPayload, createBenchSchema, dropBenchSchema, outboxTable } from './bench-schema.js';
import { f0, f1, f2, median } from './bench-stats.js';
import { RAW_LEASE_MS, handWrittenStatements } from './raw-outbox.js';

/** QueueBox's default claim size. */
const BATCH = 50;

/** One EXPLAIN (ANALYZE, BUFFERS) of a claim: its times and the buffers it touched. */
interface ClaimPlanFigures {
  executionMs: number;
  planningMs: number;
  /** Shared buffers hit + read by the whole statement (execution, not planning). */
  buffers: number;
  /** Rows the statement returned (QueueBox's claim returns a progress row first, claimed rows joined to it). */
  rows: number;
}

interface ExplainNode {
  'Actual Rows'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}
interface ExplainJson {
  Plan: ExplainNode;
  'Planning Time': number;
  'Execution Time': number;
  Planning?: { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
}

/**
 * Seeds a table: `finished` sent rows, then `pending` rows, both round-robin over `keys` keys
 * (the finished rows first: they are the older ones, as after an outage that is caught up on).
 */
async function seedBacklog(
  admin: pg.Pool,
  schema: string,
  finished: number,
  pending: number,
  keys: number,
): Promise<void> {
  const t = outboxTable(schema);
  const payload = JSON.stringify(benchPayload(0));
  const insert = (state: 'sent' | 'pending', total: number) =>
    admin.query(
      `INSERT INTO ${t} (message_id, destination, ordering_key, headers, payload, state, attempts, finished_at)
       SELECT gen_random_uuid(), 'noop', 'key-' || (g % $1::integer), '{}'::jsonb, $2, $3::text, CASE WHEN $3::text = 'sent' THEN 1 ELSE 0 END,
              CASE WHEN $3::text = 'sent' THEN statement_timestamp() END
       FROM generate_series(0, $4::integer - 1) AS g`,
      [keys, payload, state, total],
    );
  if (finished > 0) await insert('sent', finished);
  await insert('pending', pending);
  await admin.query(`VACUUM ANALYZE ${t}`);
}

/** Marks the head of every key processing, as when every key has a message in flight. */
async function holdHeads(admin: pg.Pool, schema: string): Promise<void> {
  const t = outboxTable(schema);
  await admin.query(
    `UPDATE ${t} SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
       lease_expires_at = statement_timestamp() + interval '1 hour', attempts = attempts + 1
     WHERE id IN (SELECT min(id) FROM ${t} WHERE state = 'pending' GROUP BY destination, ordering_key)`,
  );
  await admin.query(`VACUUM ANALYZE ${t}`);
}

function figures(json: ExplainJson): ClaimPlanFigures {
  return {
    executionMs: json['Execution Time'],
    planningMs: json['Planning Time'],
    buffers: (json.Plan['Shared Hit Blocks'] ?? 0) + (json.Plan['Shared Read Blocks'] ?? 0),
    rows: json.Plan['Actual Rows'] ?? 0,
  };
}

/**
 * Runs EXPLAIN (ANALYZE, BUFFERS) of `sql` `times` times, each in a transaction rolled back (the
 * claim's UPDATE runs, and is undone, so that every repetition sees the same table). `generic`:
 * the plan a prepared statement settles on (QueueBox prepares its claim), forced with
 * plan_cache_mode; else a custom plan for the parameter values.
 */
async function explainClaims(
  admin: pg.Pool,
  sql: string,
  params: readonly unknown[],
  times: number,
  generic: boolean,
): Promise<ClaimPlanFigures[]> {
  const client = await admin.connect();
  const out: ClaimPlanFigures[] = [];
  try {
    if (generic) await client.query(`PREPARE bench_claim(integer, integer, integer, integer, text, text) AS ${sql}`);
    for (let i = 0; i < times; i++) {
      await client.query('BEGIN');
      try {
        if (generic) await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
        // EXPLAIN EXECUTE takes no bound parameters: the values go in as literals (numbers and the cursor's strings).
        const literals = params
          .map((p) => (typeof p === 'number' ? String(p) : client.escapeLiteral(String(p))))
          .join(', ');
        const { rows } = generic
          ? await client.query<{ 'QUERY PLAN': ExplainJson[] }>(
              `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE bench_claim(${literals})`,
            )
          : await client.query<{ 'QUERY PLAN': ExplainJson[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, [
              ...params,
            ]);
        out.push(figures(rows[0]['QUERY PLAN'][0]));
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    if (generic) await client.query('DEALLOCATE bench_claim').catch(() => undefined);
    client.release();
  }
  return out;
}

function summarize(list: readonly ClaimPlanFigures[]): {
  ms: number;
  planningMs: number;
  buffers: number;
  rows: number;
} {
  return {
    ms: median(list.map((f) => f.executionMs)),
    planningMs: median(list.map((f) => f.planningMs)),
    buffers: median(list.map((f) => f.buffers)),
    rows: median(list.map((f) => f.rows)),
  };
}

/** Per-claim figures of one table state, for the comparison. */
interface StateFigures {
  label: string;
  custom: ReturnType<typeof summarize>;
  generic: ReturnType<typeof summarize> | undefined;
}

/** The claim's figures on one table: QueueBox's claim (custom and generic plans) and, once, the raw head-of-key claim. */
async function measureTable(ctx: BenchContext, schema: string, label: string, claims: number): Promise<StateFigures> {
  const dialect = new StatementCatalog(postgresDialect, resolveOptions({ schema }).tables);
  const claim = dialect.claimOutbox(['noop'], new WalkCursor().request(BATCH, RAW_LEASE_MS), { lock: false }).claim;
  const custom = summarize(await explainClaims(ctx.admin, claim.sql, claim.params, claims, false));
  let generic: StateFigures['generic'];
  try {
    generic = summarize(await explainClaims(ctx.admin, claim.sql, claim.params, claims, true));
  } catch (error) {
    ctx.print(`      (generic plan not measured: ${(error as Error).message})`);
  }
  const raw = summarize(
    await explainClaims(ctx.admin, handWrittenStatements(schema, true).claim, [BATCH, RAW_LEASE_MS], 1, false),
  );
  const line = (name: string, s: ReturnType<typeof summarize>): string =>
    `${name}: ${f2(s.ms)} ms execution + ${f2(s.planningMs)} ms planning, ${f0(s.buffers)} buffers, ${f0(s.rows)} rows returned`;
  ctx.print(`    ${label}`);
  ctx.print(`      QueueBox claim, custom plan (median of ${claims}): ${line('', custom).slice(2)}`);
  if (generic) ctx.print(`      QueueBox claim, generic plan (median of ${claims}): ${line('', generic).slice(2)}`);
  ctx.print(`      raw head-of-key claim (one run, for contrast): ${line('', raw).slice(2)}`);
  return { label, custom, generic };
}

/** The claim's time on the deep table against the small one, in one state of the heads of keys. */
export interface BacklogResult {
  which: 'heads free' | 'heads in flight';
  smallMs: number;
  deepMs: number;
  /** deep / small, custom plan (the target: ≤ 2). */
  ratio: number;
  genericRatio: number | undefined;
}

/**
 * The deep backlog: per-claim time and buffers of QueueBox's claim statement (EXPLAIN (ANALYZE,
 * BUFFERS)) on a table of `finished` sent rows plus `pending` rows over a few keys, against a
 * table holding only a small pending set; with the heads of keys free, and with every head in
 * flight (the claim then finds nothing, and must not pay for the backlog to learn it).
 */
export async function backlogScenario(ctx: BenchContext, config: BenchConfig): Promise<BacklogResult[]> {
  const cfg = config.peers.backlog;
  ctx.heading(
    `Deep backlog: claim of ${BATCH} (QueueBox's default) on ${f0(cfg.finished)} sent + ${f0(cfg.pending)} pending rows over ${cfg.keys} keys, against a table of ${cfg.keys * 20} pending rows; EXPLAIN (ANALYZE, BUFFERS), rolled back`,
  );
  const small = await createBenchSchema(ctx.url, 'small');
  const deep = await createBenchSchema(ctx.url, 'deep');
  try {
    await seedBacklog(ctx.admin, small, 0, cfg.keys * 20, cfg.keys);
    const seedStarted = performance.now();
    await seedBacklog(ctx.admin, deep, cfg.finished, cfg.pending, cfg.keys);
    ctx.print(`  (deep table seeded in ${f1((performance.now() - seedStarted) / 1000)} s)`);
    const results: [StateFigures, StateFigures][] = [];
    const out: BacklogResult[] = [];
    ctx.print('\n  heads of keys free:');
    results.push([
      await measureTable(ctx, small, 'small table', cfg.claims),
      await measureTable(ctx, deep, 'deep backlog', cfg.claims),
    ]);
    await holdHeads(ctx.admin, small);
    await holdHeads(ctx.admin, deep);
    ctx.print('\n  every head in flight (processing):');
    results.push([
      await measureTable(ctx, small, 'small table', cfg.claims),
      await measureTable(ctx, deep, 'deep backlog', cfg.claims),
    ]);
    for (const [i, [a, b]] of results.entries()) {
      const which = i === 0 ? 'heads free' : 'heads in flight';
      const time = b.custom.ms / a.custom.ms;
      const buffers = b.custom.buffers / Math.max(a.custom.buffers, 1);
      out.push({
        which,
        smallMs: a.custom.ms,
        deepMs: b.custom.ms,
        ratio: time,
        genericRatio: a.generic && b.generic ? b.generic.ms / a.generic.ms : undefined,
      });
      ctx.print(
        `  => ${which}: claim time deep/small = ${f2(time)}× (target ≤ 2: ${time <= 2 ? 'met' : 'NOT met'}), buffers per claim small ${f0(a.custom.buffers)} → deep ${f0(b.custom.buffers)} (${f2(buffers)}×)` +
          (a.generic && b.generic
            ? `; generic plan: ${f2(b.generic.ms / a.generic.ms)}× time, buffers ${f0(a.generic.buffers)} → ${f0(b.generic.buffers)}`
            : ''),
      );
    }
    return out;
  } finally {
    await dropBenchSchema(ctx.admin, small);
    await dropBenchSchema(ctx.admin, deep);
  }
}
