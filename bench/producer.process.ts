/**
 * The producer of the cross-process latency scenario, run as a child process (fork) so that the
 * consumer's wake-up must cross processes as it does between replicas. It enqueues one message per
 * transaction at a steady rate (open loop), records the wall-clock time at which each commit
 * returned, and sends the times and its own CPU to the parent over IPC.
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import graphileWorker from 'graphile-worker';
import { startBenchApp } from './bench-app.js';
import { benchPayload } from './bench-schema.js';
import { sleep } from './bench-stats.js';
import { PRODUCER_APPLICATION_NAME, withApplicationName } from './wait-sampler.js';

const { Logger, makeWorkerUtils } = graphileWorker;

/** What the parent passes as the one argument (JSON). */
export interface ProducerRequest {
  system: 'queuebox' | 'graphile';
  url: string;
  schema: string;
  rate: number;
  seconds: number;
  keys: number;
}

/** What the child sends back. */
export interface ProducerReport {
  /** performance.timeOrigin + performance.now() when each commit returned, by sequence number. */
  commitAt: number[];
  /** The same clock when each message's send began (before waiting for a pooled connection). */
  beganAt: number[];
  /** The same clock inside the transaction, as the enqueue began (after the pool and BEGIN): its notification cannot come earlier. */
  insideAt: number[];
  commitMs: number[];
  cpuUs: number;
  ms: number;
  maxInFlight: number;
}

const nowEpochMs = (): number => performance.timeOrigin + performance.now();

async function produce(
  rate: number,
  seconds: number,
  send: (seq: number, inside: () => void) => Promise<void>,
): Promise<ProducerReport> {
  const total = rate * seconds;
  const intervalMs = 1000 / rate;
  const commitAt = Array.from({ length: total }, () => Number.NaN);
  const beganAt = Array.from({ length: total }, () => Number.NaN);
  const insideAt = Array.from({ length: total }, () => Number.NaN);
  const commitMs: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let maxInFlight = 0;
  let next = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  while (next < total) {
    const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
    while (next < due) {
      const seq = next++;
      const began = performance.now();
      beganAt[seq] = nowEpochMs();
      const task: Promise<void> = send(seq, () => {
        insideAt[seq] = nowEpochMs();
      }).then(() => {
        commitAt[seq] = nowEpochMs();
        commitMs.push(performance.now() - began);
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
      maxInFlight = Math.max(maxInFlight, inFlight.size);
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  const cpu = process.cpuUsage(cpu0);
  return {
    commitAt,
    beganAt,
    insideAt,
    commitMs,
    cpuUs: cpu.user + cpu.system,
    ms: performance.now() - started,
    maxInFlight,
  };
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2]) as ProducerRequest;
  const key = (seq: number): string => `key-${seq % Math.max(request.keys, 1)}`;
  let report: ProducerReport;
  if (request.system === 'queuebox') {
    // An API-only replica: enqueue commits, then its wake-up NOTIFY reaches the consumer process.
    // QUEUEBOX_BENCH_COALESCE_MS: an experiment with the producer's wake-up window (default: QueueBox's).
    const coalesceMs = process.env.QUEUEBOX_BENCH_COALESCE_MS
      ? Number(process.env.QUEUEBOX_BENCH_COALESCE_MS)
      : undefined;
    const app = await startBenchApp({
      url: request.url,
      schema: request.schema,
      poolSize: 20,
      applicationName: PRODUCER_APPLICATION_NAME,
      queuebox: {
        workers: { enabled: false },
        ...(coalesceMs === undefined ? {} : { outbox: { notify: { coalesceMs } } }),
      },
    });
    try {
      report = await produce(request.rate, request.seconds, async (seq, inside) => {
        await app.dataSource.transaction((manager) => {
          inside();
          return app.outbox.enqueue({ destination: 'noop', payload: benchPayload(seq), key: key(seq) }, { manager });
        });
      });
    } finally {
      await app.close();
    }
  } else {
    const utils = await makeWorkerUtils({
      connectionString: withApplicationName(request.url, PRODUCER_APPLICATION_NAME),
      schema: request.schema,
      logger: new Logger(() => () => undefined),
    });
    try {
      report = await produce(request.rate, request.seconds, async (seq, inside) => {
        // One statement (add_job) on a pooled connection: "inside" is as it is sent.
        inside();
        // No queue_name: graphile-worker's serial queues are its ordered mode, far slower (see the ordered drain).
        await utils.addJob('noop', benchPayload(seq));
      });
    } finally {
      await utils.release();
    }
  }
  await new Promise<void>((resolve, reject) =>
    process.send!(report, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
