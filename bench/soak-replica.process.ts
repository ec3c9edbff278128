/**
 * One replica of the soak, run as a child process (fork) as a service's replicas run: a Nest
 * application context with QueueBox's workers at their defaults, retention on (its default
 * interval, the soak's short age) and a no-op publisher, plus an open-loop producer that the
 * coordinator starts. Every minute the coordinator asks for the window since the last one: what
 * was enqueued and published, and the samples of the latencies.
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { startBenchApp, type BenchApp } from './bench-app.js';
import { soakPayload } from './bench-schema.js';
import { StatementTimer } from './bench-stats.js';
import { OpenLoopProducer, ProducerTally } from './soak-producer.js';

/** What the coordinator passes as the one argument (JSON). */
export interface SoakReplicaConfig {
  slot: number;
  url: string;
  schema: string;
  poolSize: number;
  retentionMs: number;
}

/** Coordinator → replica. */
export type SoakReplicaCommand =
  | { type: 'produce'; messagesPerSecond: number; batch: number; keys: number; maxInFlight: number }
  | { type: 'stop-producing' }
  | { type: 'window' }
  | { type: 'status' }
  | { type: 'close' };

/** What a replica saw since the previous window. */
export interface SoakReplicaWindow {
  type: 'window';
  slot: number;
  published: number;
  enqueued: number;
  transactions: number;
  failedTransactions: number;
  /** Messages due and not sent when the window closed (the producer's own lag). */
  behind: number;
  /** Producer's transaction began (the payload's `at`) → the publisher was called, ms, per message. */
  endToEndMs: number[];
  /** Claim statements' round trips, ms, failed ones included (the outbox claims; a completion that hands a key on is not one). */
  claimMs: number[];
  /** Claim statements that failed (a statement timeout, a lost connection). */
  claimErrors: number;
  claimedRows: number;
  /** Producer transactions, send began → commit returned, ms. */
  commitMs: number[];
  nodeCpuMs: number;
}

/** Replica → coordinator. */
export type SoakReplicaMessage =
  | { type: 'ready'; slot: number }
  | SoakReplicaWindow
  | { type: 'status'; slot: number; published: number; lastPublishAt: number }
  | { type: 'stopped'; slot: number }
  | { type: 'closed'; slot: number };

/** The replicas' application_name (pg_stat_activity tells them from the coordinator's admin pool). */
export const soakReplicaApplicationName = (slot: number): string => `queuebox-soak-replica-${slot}`;

const epochNow = (): number => performance.timeOrigin + performance.now();

class ReplicaWindowRecorder {
  published = 0;
  lastPublishAt = 0;
  tally = new ProducerTally();
  private windowPublished = 0;
  private endToEndMs: number[] = [];
  private claimMs: number[] = [];
  private claimErrors = 0;
  private claimedRows = 0;
  private cpuBefore = process.cpuUsage();

  onPublish(payload: string): void {
    const now = epochNow();
    this.published += 1;
    this.windowPublished += 1;
    this.lastPublishAt = now;
    const { at } = JSON.parse(payload) as { at?: number };
    // The drain's seeded rows carry no send time.
    if (at !== undefined && at > 0) this.endToEndMs.push(now - at);
  }

  onClaim(rows: number, ms: number): void {
    this.claimMs.push(ms);
    this.claimedRows += rows;
  }

  onClaimFailed(ms: number): void {
    this.claimMs.push(ms);
    this.claimErrors += 1;
  }

  take(slot: number, producer: OpenLoopProducer | undefined): SoakReplicaWindow {
    const cpu = process.cpuUsage(this.cpuBefore);
    this.cpuBefore = process.cpuUsage();
    const tally = this.tally;
    const window: SoakReplicaWindow = {
      type: 'window',
      slot,
      published: this.windowPublished,
      enqueued: tally.enqueued,
      transactions: tally.transactions,
      failedTransactions: tally.failures,
      behind: producer?.behind ?? 0,
      endToEndMs: this.endToEndMs,
      claimMs: this.claimMs,
      claimErrors: this.claimErrors,
      claimedRows: this.claimedRows,
      commitMs: tally.commitMs,
      nodeCpuMs: (cpu.user + cpu.system) / 1000,
    };
    this.tally = new ProducerTally();
    this.windowPublished = 0;
    this.endToEndMs = [];
    this.claimMs = [];
    this.claimErrors = 0;
    this.claimedRows = 0;
    return window;
  }
}

function startProducer(
  app: BenchApp,
  slot: number,
  recorder: ReplicaWindowRecorder,
  command: Extract<SoakReplicaCommand, { type: 'produce' }>,
): OpenLoopProducer {
  // Each replica owns its share of the keys, as an aggregate's events come from one place.
  const key = (seq: number): string | undefined => (command.keys === 0 ? undefined : `r${slot}-${seq % command.keys}`);
  let failuresLogged = 0;
  const producer = new OpenLoopProducer(
    async (first, count, at) => {
      await app.dataSource.transaction((manager) =>
        app.outbox.enqueue(
          Array.from({ length: count }, (_, i) => ({
            destination: 'noop',
            key: key(first + i),
            payload: soakPayload(first + i, at),
          })),
          { manager },
        ),
      );
    },
    () => recorder.tally,
    command.messagesPerSecond,
    command.batch,
    command.maxInFlight,
    (error) => {
      // A few lines tell what failed; thousands would bury the coordinator's output.
      if (failuresLogged++ < 5) console.error(`soak replica ${slot}: producer transaction failed: ${String(error)}`);
    },
  );
  producer.start();
  return producer;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]) as SoakReplicaConfig;
  const recorder = new ReplicaWindowRecorder();
  const app = await startBenchApp({
    url: config.url,
    schema: config.schema,
    poolSize: config.poolSize,
    applicationName: soakReplicaApplicationName(config.slot),
    queuebox: { retention: { outboxSentMs: config.retentionMs } },
    prepare: (publisher, timers) => {
      publisher.onPublish = (message) => recorder.onPublish(message.payload);
      timers.onClaimed = (rows, startedAt, returnedAt, via) => {
        if (via === 'claim') recorder.onClaim(rows.length, returnedAt - startedAt);
      };
      timers.onClaimFailed = (startedAt, failedAt) => recorder.onClaimFailed(failedAt - startedAt);
    },
  });
  let producer: OpenLoopProducer | undefined;
  const reply = (message: SoakReplicaMessage): void => void process.send?.(message);
  // A coordinator that died (Ctrl-C, a crash) leaves no replica behind.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (command: SoakReplicaCommand) => {
    if (command.type === 'produce') producer ??= startProducer(app, config.slot, recorder, command);
    else if (command.type === 'stop-producing') {
      const stopping = producer;
      producer = undefined;
      void (stopping?.stop() ?? Promise.resolve()).then(() => reply({ type: 'stopped', slot: config.slot }));
    } else if (command.type === 'window') reply(recorder.take(config.slot, producer));
    else if (command.type === 'status')
      reply({
        type: 'status',
        slot: config.slot,
        published: recorder.published,
        lastPublishAt: recorder.lastPublishAt,
      });
    else if (command.type === 'close') {
      void (async () => {
        await producer?.stop();
        await app.close();
        reply({ type: 'closed', slot: config.slot });
        process.disconnect();
      })();
    }
  });
  // The bench instrumentation's statement timers keep every sample, millions in an hour: the soak
  // reads none of them (its latencies come through onClaimed), so each minute starts fresh ones.
  setInterval(() => {
    for (const name of ['claim', 'completeMany', 'renew', 'reclaim'] as const) app.timers[name] = new StatementTimer();
  }, 60_000).unref();
  reply({ type: 'ready', slot: config.slot });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
