import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { OutboxService } from 'queuebox';
import { DataSource } from 'typeorm';
import { chaosTables } from '../sql/chaos-names.js';
import { insertAttempts, insertOrders, nextSeq } from '../sql/business-tables.sql.js';
import { REPLICA_CONFIG, type ReplicaConfig } from './replica-config.js';

/** Thrown inside a producer transaction to roll it back on purpose. */
class DeliberateRollback extends Error {}

/**
 * The producers: each lane enqueues 1 to 3 messages of one of its keys per transaction, with the
 * business row that records them, and rolls some transactions back on purpose. The attempt is
 * recorded first, in its own commit, so the checks know every id that was ever meant to be sent;
 * the business row, in the same transaction as the outbox rows, says which ones were committed.
 */
@Injectable()
export class Producer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChaosProducer');
  private readonly stopping = new AbortController();
  private running: Promise<void>[] = [];

  constructor(
    @Inject(REPLICA_CONFIG) private readonly config: ReplicaConfig,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.config.lanes.map((lane) =>
      this.runLane(lane).catch((error: unknown) => this.logger.error(`lane ${lane} stopped: ${String(error)}`)),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.running);
  }

  private async runLane(lane: number): Promise<void> {
    const t = chaosTables(this.config.schema);
    let seq = await this.retrying(
      async () => ((await this.dataSource.query(nextSeq(t), [lane])) as { next: number }[])[0].next,
    );
    const started = performance.now();
    const first = seq;
    while (seq < this.config.perLane && !this.stopping.signal.aborted) {
      const count = Math.min(1 + Math.floor(Math.random() * 3), this.config.perLane - seq);
      const seqs = Array.from({ length: count }, (_, i) => seq + i);
      const ids = seqs.map((s) => `p${lane}-${s}`);
      const key = `k${lane}-${Math.floor(Math.random() * this.config.keysPerLane)}`;
      const intent = Math.random() < this.config.rollbackRate ? 'rollback' : 'commit';
      await this.retrying(() => this.dataSource.query(insertAttempts(t), [ids, lane, seqs, key, intent]));
      try {
        await this.dataSource.transaction(async (manager) => {
          const enqueued = await this.outbox.enqueue(
            ids.map((id, i) => ({ destination: 'direct', key, payload: { id, lane, seq: seqs[i] } })),
            { manager },
          );
          await manager.query(insertOrders(t), [ids, lane, seqs, key, enqueued.map((m) => m.messageId)]);
          if (intent === 'rollback') throw new DeliberateRollback();
        });
      } catch (error) {
        // A terminated connection rolls the transaction back too: the business row says what committed.
        if (!(error instanceof DeliberateRollback)) this.logger.warn(`producer transaction failed: ${String(error)}`);
      }
      seq += count;
      // Paced: lane throughput spreads production over the run instead of front-loading it.
      const due = ((seq - first) / this.config.messagesPerSecondPerLane) * 1000 - (performance.now() - started);
      if (due > 0) await sleep(due, this.stopping.signal);
    }
  }

  /** Retries a statement that a terminated connection failed, until it succeeds or shutdown begins. */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        await sleep(100, this.stopping.signal);
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
