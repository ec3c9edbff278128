import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { postgresDialect } from '../lib/database/dialects/postgres/postgres.dialect.js';
import { StatementCatalog } from '../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../lib/config/options/resolve-options.js';
import { type BenchApp, startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { benchPayload, countByState, createBenchSchema, dropBenchSchema, outboxTable } from './bench-schema.js';
import { cpuSummary, f0, f2, latencySummary, median, readCpu } from './bench-stats.js';

/** Pool of both variants: the producers plus QueueBox's own needs (NOTIFY, and the poller when on). */
const POOL_SIZE = 20;
const KEYS = 1_000;

type Variant = 'plain' | 'queuebox' | 'queuebox-notify-off' | 'queuebox+workers';

/** `producers` concurrent producers, each running transactions one after another until `rows` are written. */
async function runProducers(
  producers: number,
  rows: number,
  transaction: (seq: number) => Promise<void>,
): Promise<{ ms: number; txMs: number[] }> {
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

async function run(
  ctx: BenchContext,
  cfg: BenchConfig['enqueue'],
  variant: Variant,
  rows: number,
  quiet = false,
): Promise<number> {
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
        await source.transaction((manager) =>
          manager.query(insert, [randomUUID(), 'noop', `key-${seq % KEYS}`, '{}', JSON.stringify(benchPayload(seq))]),
        );
      };
    } else {
      const started = await startBenchApp({
        url: ctx.url,
        schema,
        poolSize: POOL_SIZE,
        queuebox: {
          workers: { enabled: variant === 'queuebox+workers' },
          outbox: { notify: { enabled: variant !== 'queuebox-notify-off' } },
        },
      });
      app = started;
      transaction = async (seq) => {
        await started.dataSource.transaction((manager) =>
          started.outbox.enqueue(
            { destination: 'noop', payload: benchPayload(seq), key: `key-${seq % KEYS}` },
            { manager },
          ),
        );
      };
    }
    const cpu0 = await readCpu(ctx.postmasterPid);
    const { ms, txMs } = await runProducers(cfg.producers, rows, transaction);
    const cpu1 = await readCpu(ctx.postmasterPid);
    const rate = (rows / ms) * 1000;
    if (!quiet) {
      const label = {
        plain: 'plain INSERT ... VALUES in a transaction',
        queuebox: 'outboxService.enqueue in a transaction (workers disabled, notify on)',
        'queuebox-notify-off': 'outboxService.enqueue in a transaction (workers disabled, notify OFF)',
        'queuebox+workers':
          'outboxService.enqueue in a transaction (workers ENABLED, defaults: the poller drains meanwhile)',
      }[variant];
      ctx.print(`  ${label}: ${f0(rate)} rows/s (${f0(ms)} ms)`);
      ctx.print(`      transaction ${latencySummary(txMs)}`);
      ctx.print(
        `      cpu: ${cpuSummary(cpu0, cpu1, ms)}; states at the end ${JSON.stringify(await countByState(ctx.admin, schema))}`,
      );
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
  ctx.heading(
    `3. Enqueue throughput: ${cfg.producers} concurrent producers, ${f0(cfg.rows)} transactions of one row each, ${KEYS} keys`,
  );
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
  const plainMedian = median(plainRates);
  if (cfg.repeats > 0) {
    const ratios = queueBoxRates.map((rate, i) => rate / plainRates[i]);
    ctx.print(
      `  => overall (median of ${cfg.repeats} rounds): plain ${f0(plainMedian)} rows/s, QueueBox ${f0(median(queueBoxRates))} rows/s, ratio QueueBox/plain = ${f2(median(queueBoxRates) / plainMedian)} (goal >= 0.90); per-round ratios [${ratios.map(f2).join(', ')}]`,
    );
  }
  const extra: Variant[] = [
    ...(cfg.notifyOff ? (['queuebox-notify-off'] as const) : []),
    ...(cfg.workersOn ? (['queuebox+workers'] as const) : []),
  ];
  for (const variant of extra) {
    const rate = await run(ctx, cfg, variant, cfg.rows);
    if (plainRates.length > 0) ctx.print(`  => ${variant}: ratio to median plain = ${f2(rate / plainMedian)}`);
  }
  if (cfg.statementCost > 0) await insertStatementCost(ctx, cfg.statementCost);
}

/**
 * Where the enqueue's database time goes: the server cost of one insert statement, without the
 * commit. One connection, `count` statements per variant inside one transaction that is rolled
 * back, variants alternated twice. Unnamed statements (parsed and planned each time), as
 * TypeORM sends them; the prepared forms show how much of it is parse and plan.
 */
async function insertStatementCost(ctx: BenchContext, count: number): Promise<void> {
  const schema = await createBenchSchema(ctx.url, 'stmt');
  const dialect = new StatementCatalog(postgresDialect, resolveOptions({ schema }).tables);
  const plain = `INSERT INTO ${outboxTable(schema)} (message_id, destination, ordering_key, headers, payload) VALUES ($1, $2, $3, $4::jsonb, $5)`;
  const values = (seq: number): unknown[] => [
    randomUUID(),
    'noop',
    `key-${seq % KEYS}`,
    '{}',
    JSON.stringify(benchPayload(seq)),
  ];
  // The statement enqueue sends for one message (the single-row form).
  const queueBox = (seq: number) => {
    const [messageId, destination, key, headers, payload] = values(seq) as string[];
    return dialect.insertOutbox([{ messageId, destination, key, headers, payload, delayMs: 0 }]);
  };
  const queueBoxSql = queueBox(0).sql;
  const variants: { name: string; query: (seq: number) => pg.QueryConfig }[] = [
    { name: 'plain INSERT ... VALUES', query: (seq) => ({ text: plain, values: values(seq) }) },
    {
      name: "QueueBox's insertOutbox for one message (INSERT ... VALUES ... RETURNING)",
      query: (seq) => ({ text: queueBoxSql, values: [...queueBox(seq).params] }),
    },
    {
      name: 'plain INSERT ... VALUES, prepared',
      query: (seq) => ({ name: 'bench_plain_insert', text: plain, values: values(seq) }),
    },
    {
      name: "QueueBox's insertOutbox, prepared",
      query: (seq) => ({ name: 'bench_queuebox_insert', text: queueBoxSql, values: [...queueBox(seq).params] }),
    },
    { name: 'SELECT 1 (round-trip floor)', query: () => ({ text: 'SELECT 1' }) },
  ];
  const client = await ctx.admin.connect();
  const perStatement = new Map<string, number[]>();
  try {
    // Round 0 warms the caches (a fresh schema's catalog entries, plans) and is not reported.
    for (let round = 0; round < 3; round++) {
      for (const variant of round % 2 === 1 ? variants : [...variants].reverse()) {
        await client.query('BEGIN');
        const started = performance.now();
        for (let seq = 0; seq < count; seq++) await client.query(variant.query(seq));
        const us = ((performance.now() - started) / count) * 1000;
        await client.query('ROLLBACK');
        if (round > 0) perStatement.set(variant.name, [...(perStatement.get(variant.name) ?? []), us]);
      }
    }
  } finally {
    // A failed variant leaves its transaction open: end it before the connection goes back.
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    await dropBenchSchema(ctx.admin, schema);
  }
  ctx.print(
    `  insert statement cost (one connection, ${f0(count)} statements per variant in a rolled-back transaction, no commit; two rounds after a warm-up round):`,
  );
  for (const [name, us] of perStatement)
    ctx.print(`      ${f0(median(us)).padStart(5)} us/statement  ${name}  [${us.map(f0).join(', ')}]`);
}
