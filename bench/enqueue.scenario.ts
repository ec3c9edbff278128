import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { type BenchApp, startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { benchPayload, countByState, createBenchSchema, dropBenchSchema, outboxTable } from './bench-schema.js';
import { cpuSummary, f0, f2, latencySummary, readCpu } from './bench-stats.js';

/** Pool of both variants: the producers plus QueueBox's own needs (NOTIFY, and the poller when on). */
const POOL_SIZE = 20;
const KEYS = 1_000;

type Variant = 'plain' | 'queuebox' | 'queuebox+workers';

/** `producers` concurrent producers, each running transactions one after another until `rows` are written. */
async function runProducers(producers: number, rows: number, transaction: (seq: number) => Promise<void>): Promise<{ ms: number; txMs: number[] }> {
  let next = 0;
  const txMs: number[] = [];
  const started = performance.now();
  const producer = async (): Promise<void> => {
    while (next < rows) {
      const seq = next++;
      const began = performance.now();
      await transaction(seq);
      txMs.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: producers }, producer));
  return { ms: performance.now() - started, txMs };
}

async function run(ctx: BenchContext, cfg: BenchConfig['enqueue'], variant: Variant, rows: number, quiet = false): Promise<number> {
  const schema = await createBenchSchema(ctx.url, 'enqueue');
  let plain: DataSource | undefined;
  let app: BenchApp | undefined;
  try {
    let transaction: (seq: number) => Promise<void>;
    if (variant === 'plain') {
      plain = await new DataSource({ type: 'postgres', url: ctx.url, schema, extra: { max: POOL_SIZE } }).initialize();
      const source = plain;
      const insert = `INSERT INTO ${outboxTable(schema)} (message_id, destination, ordering_key, headers, payload) VALUES ($1, $2, $3, $4::jsonb, $5)`;
      transaction = async (seq) => {
        await source.transaction((manager) => manager.query(insert, [randomUUID(), 'noop', `key-${seq % KEYS}`, '{}', JSON.stringify(benchPayload(seq))]));
      };
    } else {
      const started = await startBenchApp({
        url: ctx.url,
        schema,
        poolSize: POOL_SIZE,
        queuebox: { workers: { enabled: variant === 'queuebox+workers' } },
      });
      app = started;
      transaction = async (seq) => {
        await started.dataSource.transaction((manager) =>
          started.outbox.enqueue({ destination: 'noop', payload: benchPayload(seq), key: `key-${seq % KEYS}` }, { manager }),
        );
      };
    }
    const cpu0 = await readCpu(ctx.localPostgres);
    const { ms, txMs } = await runProducers(cfg.producers, rows, transaction);
    const cpu1 = await readCpu(ctx.localPostgres);
    const rate = (rows / ms) * 1000;
    if (!quiet) {
      const label = {
        plain: 'plain INSERT ... VALUES in a transaction',
        queuebox: 'outboxService.enqueue in a transaction (workers disabled, notify on)',
        'queuebox+workers': 'outboxService.enqueue in a transaction (workers ENABLED: the poller drains meanwhile)',
      }[variant];
      ctx.print(`  ${label}: ${f0(rate)} rows/s (${f0(ms)} ms)`);
      ctx.print(`      transaction ${latencySummary(txMs)}`);
      ctx.print(`      cpu: ${cpuSummary(cpu0, cpu1, ms)}; states at the end ${JSON.stringify(await countByState(ctx.admin, schema))}`);
    }
    return rate;
  } finally {
    await app?.close();
    await plain?.destroy();
    await dropBenchSchema(ctx.admin, schema);
  }
}

/** Scenario 3: enqueue throughput of concurrent producers, one row per transaction. */
export async function enqueueScenario(ctx: BenchContext, config: BenchConfig): Promise<void> {
  const cfg = config.enqueue;
  ctx.heading(`3. Enqueue throughput: ${cfg.producers} concurrent producers, ${f0(cfg.rows)} transactions of one row each, ${KEYS} keys`);
  if (cfg.warmupRows > 0) {
    await run(ctx, cfg, 'plain', cfg.warmupRows, true);
    await run(ctx, cfg, 'queuebox', cfg.warmupRows, true);
    ctx.print(`  (warm-up of ${f0(cfg.warmupRows)} rows per variant done, not reported)`);
  }
  const plainRates: number[] = [];
  const queueBoxRates: number[] = [];
  for (let repeat = 0; repeat < cfg.repeats; repeat++) {
    // Alternate the order (A B, B A, ...) so drift hits both alike.
    const order: Variant[] = repeat % 2 === 0 ? ['plain', 'queuebox'] : ['queuebox', 'plain'];
    ctx.print(`  round ${repeat + 1}:`);
    for (const variant of order) {
      const rate = await run(ctx, cfg, variant, cfg.rows);
      (variant === 'plain' ? plainRates : queueBoxRates).push(rate);
    }
    ctx.print(`  => round ${repeat + 1} ratio QueueBox/plain = ${f2(queueBoxRates[repeat] / plainRates[repeat])}`);
  }
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  if (cfg.repeats > 0) {
    ctx.print(`  => overall: plain ${f0(sum(plainRates) / plainRates.length)} rows/s, QueueBox ${f0(sum(queueBoxRates) / queueBoxRates.length)} rows/s, ratio QueueBox/plain = ${f2(sum(queueBoxRates) / sum(plainRates))} (goal >= 0.90)`);
  }
  if (cfg.workersOn) {
    const rate = await run(ctx, cfg, 'queuebox+workers', cfg.rows);
    if (plainRates.length > 0) ctx.print(`  => workers enabled: ratio to mean plain = ${f2(rate / (sum(plainRates) / plainRates.length))}`);
  }
}
