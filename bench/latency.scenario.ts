import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { startBenchApp } from './bench-app.js';
import type { BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import {
  benchPayload,
  countByState,
  createBenchSchema,
  dropBenchSchema,
  outboxTable,
  rawPool,
} from './bench-schema.js';
import { cpuSummary, f0, f2, latencySummary, percentile, readCpu, sleep } from './bench-stats.js';
import { Waker, referenceStatements, startRawConsumer } from './raw-outbox.js';

/** Producer and consumer pool size of both runs. */
const POOL_SIZE = 20;
/** Fallback poll interval of both consumers (QueueBox's default): wake-ups, not polling, carry the load. */
const POLL_MS = 1_000;

interface Timeline {
  commitAt: Float64Array;
  publishedAt: Float64Array;
  commitMs: number[];
}

/**
 * Starts `rate` transactions per second for `seconds`, open loop (a slow commit does not slow
 * the schedule), each one message; records the time right after each commit returns.
 */
async function steadyProducer(
  rate: number,
  seconds: number,
  send: (seq: number) => Promise<void>,
  timeline: Timeline,
): Promise<{ ms: number; maxInFlight: number }> {
  const total = rate * seconds;
  const intervalMs = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  let maxInFlight = 0;
  let next = 0;
  const started = performance.now();
  while (next < total) {
    const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
    while (next < due) {
      const seq = next++;
      const began = performance.now();
      const task: Promise<void> = send(seq).then(() => {
        const at = performance.now();
        timeline.commitAt[seq] = at;
        timeline.commitMs.push(at - began);
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
      maxInFlight = Math.max(maxInFlight, inFlight.size);
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  return { ms: performance.now() - started, maxInFlight };
}

function newTimeline(total: number): Timeline {
  return {
    commitAt: new Float64Array(total).fill(Number.NaN),
    publishedAt: new Float64Array(total).fill(Number.NaN),
    commitMs: [],
  };
}

function recordPublish(timeline: Timeline, payload: string): void {
  const { seq } = JSON.parse(payload) as { seq: number };
  if (Number.isNaN(timeline.publishedAt[seq])) timeline.publishedAt[seq] = performance.now();
}

async function waitForPublishes(timeline: Timeline, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (timeline.publishedAt.some(Number.isNaN) && performance.now() < deadline) await sleep(10);
}

function report(
  ctx: BenchContext,
  label: string,
  timeline: Timeline,
  produced: { ms: number; maxInFlight: number },
): number {
  const latencies: number[] = [];
  let missing = 0;
  for (let seq = 0; seq < timeline.commitAt.length; seq++) {
    const latency = timeline.publishedAt[seq] - timeline.commitAt[seq];
    if (Number.isNaN(latency)) missing += 1;
    else latencies.push(latency);
  }
  const negative = latencies.filter((l) => l < 0).length;
  ctx.print(`  ${label}`);
  ctx.print(`      publish - commit: ${latencySummary(latencies)}${missing ? `; ${missing} NOT PUBLISHED` : ''}`);
  ctx.print(
    `      (${negative} published before the producer saw its commit return: a claim already in flight picked the row up)`,
  );
  ctx.print(
    `      producer: ${f0(timeline.commitAt.length)} tx in ${f0(produced.ms)} ms = ${f0((timeline.commitAt.length / produced.ms) * 1000)} tx/s, commit ${latencySummary(timeline.commitMs)}, max ${produced.maxInFlight} in flight`,
  );
  return percentile(latencies, 50);
}

async function queueBoxRun(ctx: BenchContext, cfg: BenchConfig['latency']): Promise<number> {
  const schema = await createBenchSchema(ctx.url, 'latency');
  const total = cfg.rate * cfg.seconds;
  const timeline = newTimeline(total);
  const app = await startBenchApp({
    url: ctx.url,
    schema,
    poolSize: POOL_SIZE,
    queuebox: { outbox: { pollIntervalMs: POLL_MS } },
    prepare: (publisher) => {
      publisher.onPublish = (message) => recordPublish(timeline, message.payload);
    },
  });
  try {
    const cpu0 = await readCpu(ctx.postmasterPid);
    const produced = await steadyProducer(
      cfg.rate,
      cfg.seconds,
      async (seq) => {
        await app.dataSource.transaction((manager) =>
          app.outbox.enqueue(
            { destination: 'noop', payload: benchPayload(seq), key: `key-${seq % Math.max(cfg.keys, 1)}` },
            { manager },
          ),
        );
      },
      timeline,
    );
    const cpu1 = await readCpu(ctx.postmasterPid);
    await waitForPublishes(timeline, 30_000);
    const p50 = report(
      ctx,
      `QueueBox (defaults: batchSize 50, concurrency 100, pollIntervalMs ${POLL_MS}, notify on; wake-up after commit)`,
      timeline,
      produced,
    );
    ctx.print(`      claim: ${app.timers.claim.summary()}`);
    ctx.print(`             rows per claim: ${app.timers.claim.sizeHistogram()}`);
    ctx.print(`      completeMany: ${app.timers.completeMany.summary()}`);
    ctx.print(
      `      cpu during the run: ${cpuSummary(cpu0, cpu1, produced.ms)}; states ${JSON.stringify(await countByState(ctx.admin, schema))}`,
    );
    return p50;
  } finally {
    await app.close();
    await dropBenchSchema(ctx.admin, schema);
  }
}

async function rawRun(ctx: BenchContext, cfg: BenchConfig['latency']): Promise<number> {
  const schema = await createBenchSchema(ctx.url, 'latency');
  const total = cfg.rate * cfg.seconds;
  const timeline = newTimeline(total);
  const producerSource = await new DataSource({
    type: 'postgres',
    url: ctx.url,
    schema,
    extra: { max: POOL_SIZE },
  }).initialize();
  const consumerPool = rawPool(ctx.url, 2);
  const waker = new Waker();
  const sql = referenceStatements(schema);
  const insert = `INSERT INTO ${outboxTable(schema)} (message_id, destination, ordering_key, headers, payload) VALUES ($1, $2, $3, $4::jsonb, $5)`;
  const consumer = startRawConsumer(
    consumerPool,
    sql,
    { batch: 50, pollMs: POLL_MS },
    (row) => {
      recordPublish(timeline, row.payload);
      return Promise.resolve();
    },
    waker,
  );
  try {
    const cpu0 = await readCpu(ctx.postmasterPid);
    const produced = await steadyProducer(
      cfg.rate,
      cfg.seconds,
      async (seq) => {
        await producerSource.transaction((manager) =>
          manager.query(insert, [
            randomUUID(),
            'noop',
            `key-${seq % Math.max(cfg.keys, 1)}`,
            '{}',
            JSON.stringify(benchPayload(seq)),
          ]),
        );
        waker.wake();
      },
      timeline,
    );
    const cpu1 = await readCpu(ctx.postmasterPid);
    await waitForPublishes(timeline, 30_000);
    const p50 = report(
      ctx,
      `raw loop (sql.md 2.2 claim of 50 + 2.5 batched complete; in-process wake after each commit, ${POLL_MS} ms fallback poll)`,
      timeline,
      produced,
    );
    ctx.print(`      claim: ${consumer.stats.claim.summary()}`);
    ctx.print(`             rows per claim: ${consumer.stats.claim.sizeHistogram()}`);
    ctx.print(`      complete: ${consumer.stats.complete.summary()}`);
    ctx.print(
      `      cpu during the run: ${cpuSummary(cpu0, cpu1, produced.ms)}; states ${JSON.stringify(await countByState(ctx.admin, schema))}`,
    );
    return p50;
  } finally {
    await consumer.stop();
    await consumerPool.end();
    await producerSource.destroy();
    await dropBenchSchema(ctx.admin, schema);
  }
}

/** Scenario 2: commit-to-publish latency at a steady rate, one message per transaction. */
export async function latencyScenario(ctx: BenchContext, config: BenchConfig): Promise<void> {
  const cfg = config.latency;
  ctx.heading(
    `2. Latency: ${cfg.rate} msg/s for ${cfg.seconds} s, one enqueue per transaction, ${cfg.keys} keys, no-op publisher; latency = publish time - time the commit returned`,
  );
  const raw = await rawRun(ctx, cfg);
  const qb = await queueBoxRun(ctx, cfg);
  ctx.print(`  => p50 QueueBox ${f2(qb)} ms (goal < 5 ms), raw ${f2(raw)} ms`);
}
