import { fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import graphileWorker from 'graphile-worker';
import pg from 'pg';
import { wakeChannel } from '../lib/database/dialects/postgres/notify-transport.js';
import { resolveOptions } from '../lib/config/options/resolve-options.js';
import { startBenchApp } from './bench-app.js';
import { consumerAsyncCommit, type BenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { createBenchSchema, dropBenchSchema } from './bench-schema.js';
import { cpuNow, cpuPerMessage, f0, f1, f2, median, percentile, sleep } from './bench-stats.js';
import { WalMeter, settleBeforeRun, type WalPerMessage } from './bench-wal.js';
import { latencyStages, type ClaimTiming } from './latency-stages.js';
import { walText } from './peers/compare.js';
import { createGraphileSchema, quietGraphileLogger } from './peers/graphile-worker.runner.js';
import type { ProducerReport, ProducerRequest } from './producer.process.js';
import { startWaitSampler, waitProfileText } from './wait-sampler.js';

const { run } = graphileWorker;

/** graphile-worker's consumer concurrency and local queue (QueueBox's default concurrency before adaptive pacing); QueueBox runs at its defaults. */
const CONSUMER_CONCURRENCY = 100;
/** The first messages of a run are its warm-up (JIT, pools, prepared statements): left out of the latencies. */
const WARMUP_SHARE = 0.1;
/** How long after the producer's last commit every message must have been published. */
const DRAIN_GRACE_MS = 15_000;

/** One system at one rate. */
interface LatencyOutcome {
  p50: number;
  p99: number;
  max: number;
  published: number;
  total: number;
  notifies: number;
  consumerNodeUs: number;
  producerNodeUs: number;
  /** Transactions per second the producer reached (below the rate: the machine could not carry the producer). */
  producerTxPerSecond: number;
  postgresUs: number | undefined;
  wal?: WalPerMessage;
  detail: string;
  /** The latency stage breakdown and the wait-event profile, printed under the run's line. */
  stages: string[];
}

const nowEpochMs = (): number => performance.timeOrigin + performance.now();

/** Counts the notifications of `channel` on a connection of its own, and when each arrived (epoch ms). */
async function countNotifies(
  url: string,
  channel: string,
): Promise<{ count(): number; times: number[]; stop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times: number[] = [];
  client.on('notification', () => {
    times.push(nowEpochMs());
  });
  await client.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
  return { count: () => times.length, times, stop: () => client.end() };
}

async function runProducer(request: ProducerRequest): Promise<ProducerReport> {
  const script = fileURLToPath(new URL('./producer.process.js', import.meta.url));
  const child = fork(script, [JSON.stringify(request)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const message = once(child, 'message') as Promise<[ProducerReport]>;
  const first = await Promise.race([message.then(([report]) => report), exited.then(([code]) => code)]);
  if (typeof first === 'number' || first === null)
    throw new Error(`producer process exited (${String(first)}) without a report`);
  await exited;
  return first;
}

/**
 * Runs the producer and waits for the publishes; shared by both systems. Returns the outcome and
 * the run's WAL meter, read once the consumer has closed its connections.
 */
async function measure(
  ctx: BenchContext,
  request: ProducerRequest,
  publishedAt: Float64Array,
  listener: { count(): number; times: number[] },
  detail: string,
  claims?: ReadonlyMap<number, ClaimTiming>,
): Promise<{ outcome: LatencyOutcome; wal: WalMeter }> {
  await settleBeforeRun(ctx.admin);
  const wal = new WalMeter(ctx.admin);
  const sampler = await startWaitSampler(ctx.url);
  const cpu0 = cpuNow(ctx.postmasterPid);
  wal.start();
  const report = await runProducer(request);
  const deadline = performance.now() + DRAIN_GRACE_MS;
  while (publishedAt.some(Number.isNaN) && performance.now() < deadline) await sleep(5);
  const cpu1 = cpuNow(ctx.postmasterPid);
  wal.stop();
  const waits = await sampler.stop();
  const latencies: number[] = [];
  for (let seq = Math.floor(report.commitAt.length * WARMUP_SHARE); seq < report.commitAt.length; seq++) {
    const latency = publishedAt[seq] - report.commitAt[seq];
    if (!Number.isNaN(latency)) latencies.push(latency);
  }
  const total = report.commitAt.length;
  const cpu = cpuPerMessage(cpu0, cpu1, total);
  latencies.sort((a, b) => a - b);
  // Without claim timings (graphile-worker, whose addJob waits for its pool inside the timed
  // send) the stages would mislead: only the wait profile is printed.
  const stages = claims
    ? latencyStages({
        beganAt: report.beganAt,
        insideAt: report.insideAt,
        commitAt: report.commitAt,
        publishedAt,
        notifiedAt: listener.times,
        claims,
        firstSeq: Math.floor(report.commitAt.length * WARMUP_SHARE),
      })
    : [];
  stages.push(`waits (pg_stat_activity every 20 ms): ${waitProfileText(waits)}`);
  const outcome: LatencyOutcome = {
    stages,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    published: publishedAt.filter((at) => !Number.isNaN(at)).length,
    total,
    notifies: listener.count(),
    consumerNodeUs: cpu.nodeUs,
    producerNodeUs: report.cpuUs / Math.max(total, 1),
    producerTxPerSecond: (total / report.ms) * 1000,
    postgresUs: cpu.postgresUs,
    detail: `${detail}; producer ${f0((total / report.ms) * 1000)} tx/s, commit p50 ${f2(percentile(report.commitMs, 50))} ms, p99 ${f2(percentile(report.commitMs, 99))} ms, max ${report.maxInFlight} in flight`,
  };
  return { outcome, wal };
}

async function queueBoxLatency(
  ctx: BenchContext,
  rate: number,
  cfg: BenchConfig['peers']['producer'],
): Promise<LatencyOutcome> {
  const schema = await createBenchSchema(ctx.url, 'prod');
  const total = rate * cfg.seconds;
  const publishedAt = new Float64Array(total).fill(Number.NaN);
  const listener = await countNotifies(ctx.url, wakeChannel(resolveOptions({ schema }).tables, 'outbox'));
  const claims = new Map<number, ClaimTiming>();
  const app = await startBenchApp({
    url: ctx.url,
    schema,
    poolSize: 20,
    asyncCommit: consumerAsyncCommit(),
    queuebox: {},
    prepare: (publisher, timers) => {
      publisher.onPublish = (message) => {
        const { seq } = JSON.parse(message.payload) as { seq: number };
        if (Number.isNaN(publishedAt[seq])) publishedAt[seq] = nowEpochMs();
      };
      timers.onClaimed = (rows, startedAt, returnedAt, via) => {
        for (const row of rows) {
          const { seq } = JSON.parse(row.payload) as { seq: number };
          if (!claims.has(seq)) claims.set(seq, { startedAt, returnedAt, via, rows: rows.length });
        }
      };
    },
  });
  let measured: { outcome: LatencyOutcome; wal: WalMeter } | undefined;
  try {
    measured = await measure(
      ctx,
      { system: 'queuebox', url: ctx.url, schema, rate, seconds: cfg.seconds, keys: cfg.keys },
      publishedAt,
      listener,
      `defaults (no concurrency or batchSize given; notify coalesce ${process.env.QUEUEBOX_BENCH_COALESCE_MS ?? 'default'} ms)${consumerAsyncCommit() ? ', EXPERIMENT: consumer synchronous_commit off' : ''}, ${cfg.keys} keys`,
      claims,
    );
  } finally {
    await app.close();
    await listener.stop();
  }
  try {
    measured.outcome.wal = await measured.wal.perMessage(measured.outcome.total);
    return measured.outcome;
  } finally {
    await dropBenchSchema(ctx.admin, schema);
  }
}

async function graphileLatency(
  ctx: BenchContext,
  rate: number,
  cfg: BenchConfig['peers']['producer'],
): Promise<LatencyOutcome> {
  const schema = await createGraphileSchema(ctx.url);
  const total = rate * cfg.seconds;
  const publishedAt = new Float64Array(total).fill(Number.NaN);
  const listener = await countNotifies(ctx.url, 'jobs:insert');
  const runner = await run({
    connectionString: ctx.url,
    schema,
    concurrency: CONSUMER_CONCURRENCY,
    maxPoolSize: 20,
    noHandleSignals: true,
    logger: quietGraphileLogger,
    taskList: {
      noop: (payload) => {
        const { seq } = payload as { seq: number };
        if (Number.isNaN(publishedAt[seq])) publishedAt[seq] = nowEpochMs();
      },
    },
    preset: { worker: { localQueue: { size: CONSUMER_CONCURRENCY } } },
  });
  let measured: { outcome: LatencyOutcome; wal: WalMeter } | undefined;
  try {
    measured = await measure(
      ctx,
      { system: 'graphile', url: ctx.url, schema, rate, seconds: cfg.seconds, keys: cfg.keys },
      publishedAt,
      listener,
      `concurrency ${CONSUMER_CONCURRENCY}, localQueue.size ${CONSUMER_CONCURRENCY}, no queue_name`,
    );
  } finally {
    await runner.stop();
    await listener.stop();
  }
  try {
    measured.outcome.wal = await measured.wal.perMessage(measured.outcome.total);
    return measured.outcome;
  } finally {
    await ctx.admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  }
}

const SYSTEMS = [
  { name: 'QueueBox', run: queueBoxLatency },
  { name: 'graphile-worker', run: graphileLatency },
];

/** Medians of one system at one rate, for the closing summary. */
export interface ProducerResult {
  rate: number;
  system: string;
  p50: number;
  p99: number;
  max: number;
  notifies: number;
  /** Node CPU per message: the consumer's and the producer's processes together. */
  nodeUs: number;
  postgresUs: number | undefined;
  walBytes: number | undefined;
  walSyncs: number | undefined;
  producerTxPerSecond: number;
  allPublished: boolean;
}

/**
 * Producer in a separate process at each rate: enqueue → publish latency (the consumer's publish
 * time minus the time the producer's commit returned, on one wall clock), NOTIFYs sent, CPU per
 * message. pg-boss 10 is not run: it has no wake-up, its workers poll (0.5 s at the least).
 */
export async function producerScenario(ctx: BenchContext, config: BenchConfig): Promise<ProducerResult[]> {
  const cfg = config.peers.producer;
  ctx.heading(
    `Producer in a separate process: one message per transaction, open loop, ${cfg.seconds} s per run; latency = publish − commit returned, the first 10 % of messages left out as warm-up; ${config.peers.reps} paired rep(s); pg-boss not run (polling only)`,
  );
  const results: ProducerResult[] = [];
  for (const rate of cfg.rates) {
    ctx.print(`\n  case: ${rate} msg/s`);
    const outcomes = new Map<string, LatencyOutcome[]>(SYSTEMS.map((s) => [s.name, []]));
    for (let rep = 0; rep < config.peers.reps; rep++) {
      const order = SYSTEMS.map((_, i) => SYSTEMS[(i + rep) % SYSTEMS.length]);
      for (const system of order) {
        const o = await system.run(ctx, rate, cfg);
        outcomes.get(system.name)!.push(o);
        ctx.print(
          `    rep ${rep + 1} ${system.name.padEnd(16)} p50 ${f2(o.p50)} ms, p99 ${f2(o.p99)} ms, max ${f2(o.max)} ms, published ${o.published}/${o.total}, NOTIFYs ${o.notifies}; ` +
            `node: consumer ${f1(o.consumerNodeUs)} µs/msg, producer ${f1(o.producerNodeUs)} µs/msg${o.postgresUs === undefined ? '' : `; postgres ${f1(o.postgresUs)} µs/msg`}${walText(o.wal)}; ${o.detail}`,
        );
        for (const line of o.stages) ctx.print(`          ${line}`);
      }
    }
    ctx.print(`    median of ${config.peers.reps} rep(s):`);
    for (const system of SYSTEMS) {
      const list = outcomes.get(system.name)!;
      const pgUs = list.map((o) => o.postgresUs).filter((v): v is number => v !== undefined);
      const result: ProducerResult = {
        rate,
        system: system.name,
        p50: median(list.map((o) => o.p50)),
        p99: median(list.map((o) => o.p99)),
        max: median(list.map((o) => o.max)),
        notifies: median(list.map((o) => o.notifies)),
        nodeUs: median(list.map((o) => o.consumerNodeUs + o.producerNodeUs)),
        postgresUs: pgUs.length ? median(pgUs) : undefined,
        walBytes: list.every((o) => o.wal) ? median(list.map((o) => o.wal!.bytes)) : undefined,
        walSyncs: list.every((o) => o.wal) ? median(list.map((o) => o.wal!.syncs)) : undefined,
        producerTxPerSecond: median(list.map((o) => o.producerTxPerSecond)),
        allPublished: list.every((o) => o.published === o.total),
      };
      results.push(result);
      ctx.print(
        `      ${system.name.padEnd(16)} p50 ${f2(result.p50)} ms, p99 ${f2(result.p99)} ms, max ${f2(result.max)} ms, NOTIFYs ${f0(result.notifies)}; node ${f1(result.nodeUs)} µs/msg (both processes)` +
          `${result.postgresUs === undefined ? '' : `, postgres ${f1(result.postgresUs)} µs/msg`}` +
          `${result.walBytes === undefined ? '' : `, WAL ${f0(result.walBytes)} B/msg, ${f2(result.walSyncs!)} flushes/msg`}${result.allPublished ? '' : ' (SOME NOT PUBLISHED)'}`,
      );
    }
    const qb = results.find((r) => r.rate === rate && r.system === 'QueueBox')!;
    ctx.print(
      `    => QueueBox p50 ${f2(qb.p50)} ms (target ≤ 2), p99 ${f2(qb.p99)} ms (target ≤ 20): ${qb.p50 <= 2 && qb.p99 <= 20 && qb.allPublished ? 'met' : 'NOT met'}`,
    );
  }
  return results;
}
