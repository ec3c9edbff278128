import { performance } from 'node:perf_hooks';
import { PostgresDialect } from '../lib/dialects/postgres/postgres.dialect.js';
import { resolveOptions } from '../lib/options/resolve-options.js';
import { startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import { countByState, createBenchSchema, dropBenchSchema, rawPool, seedOutbox } from './bench-schema.js';
import { cpuSummary, f0, f2, readCpu } from './bench-stats.js';
import type { BenchContext } from './bench-context.js';
import { type RawStatements, rawDrain, referenceStatements } from './raw-outbox.js';

/** The claim and batched complete exactly as QueueBox's PostgreSQL dialect writes them, run by the raw loop. */
function libStatements(schema: string): RawStatements {
  const dialect = new PostgresDialect(resolveOptions({ schema }).tables);
  return {
    name: "QueueBox's own SQL text",
    claim: dialect.claimOutbox(0, 0).sql,
    completeMany: dialect.completeMany('outbox', []).sql,
  };
}

interface DrainResult {
  label: string;
  msgsPerSecond: number;
}

async function rawRun(ctx: BenchContext, cfg: BenchConfig['drain'], keys: number, loops: number, statements: (schema: string) => RawStatements): Promise<DrainResult> {
  const schema = await createBenchSchema(ctx.url, 'drain');
  await seedOutbox(ctx.admin, schema, cfg.rows, keys);
  const pool = rawPool(ctx.url, loops + 1);
  try {
    await pool.query('SELECT 1');
    const sql = statements(schema);
    let published = 0;
    const cpu0 = await readCpu(ctx.localPostgres);
    const { ms, stats } = await rawDrain(pool, sql, { loops, batch: cfg.batch, total: cfg.rows }, () => {
      published += 1;
      return Promise.resolve();
    });
    const cpu1 = await readCpu(ctx.localPostgres);
    const states = await countByState(ctx.admin, schema);
    const rate = (cfg.rows / ms) * 1000;
    const label = `raw loop (${sql.name}), ${loops} loop${loops > 1 ? 's' : ''}`;
    ctx.print(`  ${label}: ${f0(rate)} msg/s (${f0(ms)} ms, published ${published}, states ${JSON.stringify(states)})`);
    ctx.print(`      claim:    ${stats.claim.summary()}; empty claims ${stats.emptyClaims}`);
    ctx.print(`      complete: ${stats.complete.summary()}`);
    ctx.print(`      cpu:      ${cpuSummary(cpu0, cpu1, ms)}`);
    return { label, msgsPerSecond: rate };
  } finally {
    await pool.end();
    await dropBenchSchema(ctx.admin, schema);
  }
}

async function queueBoxRun(ctx: BenchContext, cfg: BenchConfig['drain'], keys: number, concurrency: number): Promise<DrainResult> {
  const schema = await createBenchSchema(ctx.url, 'drain');
  await seedOutbox(ctx.admin, schema, cfg.rows, keys);
  let finished!: (at: number) => void;
  const done = new Promise<number>((resolve) => (finished = resolve));
  const timeout = setTimeout(() => finished(Number.NaN), 120_000);
  const cpu0 = await readCpu(ctx.localPostgres);
  const elu0 = performance.eventLoopUtilization();
  const bootStarted = performance.now();
  const app = await startBenchApp({
    url: ctx.url,
    schema,
    poolSize: 20,
    queuebox: { outbox: { batchSize: cfg.batch, concurrency, pollIntervalMs: cfg.pollIntervalMs } },
    prepare: (_publisher, timers) => {
      timers.onSent = (sent) => {
        if (sent >= cfg.rows) finished(performance.now());
      };
    },
  });
  try {
    const doneAt = await done;
    clearTimeout(timeout);
    const elu = performance.eventLoopUtilization(elu0);
    const cpu1 = await readCpu(ctx.localPostgres);
    const { timers, publisher } = app;
    const firstClaimAt = timers.firstClaimAt ?? bootStarted;
    const ms = doneAt - firstClaimAt;
    const rate = (cfg.rows / ms) * 1000;
    const states = await countByState(ctx.admin, schema);
    const label = `QueueBox (batchSize ${cfg.batch}, concurrency ${concurrency}, pollIntervalMs ${cfg.pollIntervalMs})`;
    ctx.print(
      `  ${label}: ${Number.isNaN(ms) ? 'DID NOT FINISH in 120 s' : `${f0(rate)} msg/s`} (${f0(ms)} ms from first claim; ${f0(doneAt - bootStarted)} ms incl. ${f0(firstClaimAt - bootStarted)} ms bootstrap; published ${publisher.published}, states ${JSON.stringify(states)})`,
    );
    ctx.print(`      claim:        ${timers.claim.summary()}`);
    ctx.print(`      completeMany: ${timers.completeMany.summary()}`);
    if (timers.renew.calls > 0) ctx.print(`      renew:        ${timers.renew.summary()}`);
    ctx.print(`      reclaim:      ${timers.reclaim.summary()}`);
    ctx.print(`      cpu:          ${cpuSummary(cpu0, cpu1, doneAt - bootStarted)}; event loop utilization ${f2(elu.utilization)}`);
    return { label, msgsPerSecond: Number.isNaN(ms) ? 0 : rate };
  } finally {
    clearTimeout(timeout);
    await app.close();
    await dropBenchSchema(ctx.admin, schema);
  }
}

/** Scenario 1: drain a pre-inserted backlog with a no-op publisher; QueueBox against a hand-written loop. */
export async function drainScenario(ctx: BenchContext, config: BenchConfig): Promise<void> {
  const cfg = config.drain;
  const cases: { name: string; keys: number }[] = [{ name: `${cfg.keys} keys x ${Math.ceil(cfg.rows / Math.max(cfg.keys, 1))} rows`, keys: cfg.keys }];
  if (cfg.nullKeys && cfg.keys > 0) cases.push({ name: 'NULL keys (unordered)', keys: 0 });

  ctx.heading(`1. Drain: ${f0(cfg.rows)} pre-inserted rows, claim batch ${cfg.batch}, no-op publisher`);
  for (const drainCase of cases) {
    ctx.print(`\n  case: ${drainCase.name}`);
    const raw1 = await rawRun(ctx, cfg, drainCase.keys, 1, referenceStatements);
    const raw2 = await rawRun(ctx, cfg, drainCase.keys, 2, referenceStatements);
    const bestRaw = raw1.msgsPerSecond >= raw2.msgsPerSecond ? raw1 : raw2;
    const bestLoops = bestRaw === raw1 ? 1 : 2;
    const qb = await queueBoxRun(ctx, cfg, drainCase.keys, cfg.concurrency);
    if (cfg.libSqlBaseline) await rawRun(ctx, cfg, drainCase.keys, bestLoops, libStatements);
    ctx.print(`  => best raw: ${bestRaw.label} ${f0(bestRaw.msgsPerSecond)} msg/s; QueueBox ${f0(qb.msgsPerSecond)} msg/s`);
    ctx.print(`  => ratio QueueBox/raw = ${f2(qb.msgsPerSecond / bestRaw.msgsPerSecond)} (goal >= 0.80)`);
  }
}
