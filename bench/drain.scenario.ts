import { performance } from 'node:perf_hooks';
import { startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import { countByState, createBenchSchema, dropBenchSchema, rawPool, seedOutbox } from './bench-schema.js';
import { cpuSummary, f0, f2, median, readCpu } from './bench-stats.js';
import type { BenchContext } from './bench-context.js';
import { type RawStatements, rawDrain, referenceStatements } from './raw-outbox.js';

interface DrainResult {
  label: string;
  msgsPerSecond: number;
}

async function rawRun(
  ctx: BenchContext,
  cfg: BenchConfig['drain'],
  keys: number,
  loops: number,
  statements: (schema: string) => RawStatements,
): Promise<DrainResult> {
  const schema = await createBenchSchema(ctx.url, 'drain');
  await seedOutbox(ctx.admin, schema, cfg.rows, keys);
  const pool = rawPool(ctx.url, loops + 1);
  try {
    await pool.query('SELECT 1');
    const sql = statements(schema);
    let published = 0;
    const cpu0 = await readCpu(ctx.postmasterPid);
    const { ms, stats } = await rawDrain(pool, sql, { loops, batch: cfg.batch, total: cfg.rows }, () => {
      published += 1;
      return Promise.resolve();
    });
    const cpu1 = await readCpu(ctx.postmasterPid);
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

async function queueBoxRun(
  ctx: BenchContext,
  cfg: BenchConfig['drain'],
  keys: number,
  concurrency: number,
): Promise<DrainResult> {
  const schema = await createBenchSchema(ctx.url, 'drain');
  await seedOutbox(ctx.admin, schema, cfg.rows, keys);
  let finished!: (at: number) => void;
  const done = new Promise<number>((resolve) => (finished = resolve));
  const timeout = setTimeout(() => finished(Number.NaN), 120_000);
  const cpu0 = await readCpu(ctx.postmasterPid);
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
    const cpu1 = await readCpu(ctx.postmasterPid);
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
    ctx.print(`                    rows per claim: ${timers.claim.sizeHistogram()}`);
    ctx.print(`      completeMany: ${timers.completeMany.summary()}`);
    ctx.print(`                    rows per completeMany: ${timers.completeMany.sizeHistogram()}`);
    if (timers.renew.calls > 0) ctx.print(`      renew:        ${timers.renew.summary()}`);
    ctx.print(`      reclaim:      ${timers.reclaim.summary()}`);
    ctx.print(
      `      cpu:          ${cpuSummary(cpu0, cpu1, doneAt - bootStarted)}; event loop utilization ${f2(elu.utilization)}`,
    );
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
  const cases: { name: string; keys: number }[] = [
    { name: `${cfg.keys} keys x ${Math.ceil(cfg.rows / Math.max(cfg.keys, 1))} rows`, keys: cfg.keys },
  ];
  if (cfg.nullKeys && cfg.keys > 0) cases.push({ name: 'NULL keys (unordered)', keys: 0 });

  ctx.heading(
    `1. Drain: ${f0(cfg.rows)} pre-inserted rows, claim batch ${cfg.batch}, no-op publisher, ${cfg.repeats} round(s) per case`,
  );
  for (const drainCase of cases) {
    ctx.print(`\n  case: ${drainCase.name}`);
    const results = new Map<string, number[]>();
    const record = (result: DrainResult): DrainResult => {
      results.set(result.label, [...(results.get(result.label) ?? []), result.msgsPerSecond]);
      return result;
    };
    for (let repeat = 0; repeat < cfg.repeats; repeat++) {
      ctx.print(`  round ${repeat + 1}:`);
      const runRaw = async (): Promise<void> => {
        for (const n of repeat % 2 === 0 ? [1, 2] : [2, 1])
          record(await rawRun(ctx, cfg, drainCase.keys, n, referenceStatements));
      };
      const runQueueBox = async (): Promise<void> => {
        const order = repeat % 2 === 0 ? cfg.concurrencies : [...cfg.concurrencies].reverse();
        for (const concurrency of order) record(await queueBoxRun(ctx, cfg, drainCase.keys, concurrency));
      };
      // Alternate raw-first and QueueBox-first so drift hits both alike.
      if (repeat % 2 === 0) {
        await runRaw();
        await runQueueBox();
      } else {
        await runQueueBox();
        await runRaw();
      }
    }
    const med = (label: string): number => median(results.get(label) ?? []);
    const rawLabels = [...results.keys()].filter((label) => label.startsWith('raw loop (sql.md'));
    const bestRaw = rawLabels.reduce((a, b) => (med(b) > med(a) ? b : a));
    ctx.print(`  summary (median msg/s over ${cfg.repeats} round(s); every run is listed above):`);
    for (const [label, values] of results)
      ctx.print(`      ${f0(med(label)).padStart(7)}  ${label}  [${values.map(f0).join(', ')}]`);
    for (const label of results.keys()) {
      if (!label.startsWith('QueueBox')) continue;
      ctx.print(
        `  => ${label}: ratio QueueBox/best raw (${bestRaw.replace('raw loop ', '')}) = ${f2(med(label) / med(bestRaw))} (goal >= 0.80)`,
      );
    }
  }
}
