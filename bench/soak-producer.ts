import { performance } from 'node:perf_hooks';
import { sleep } from './bench-stats.js';

/** How often the producer looks at what is due: well under one transaction's interval at the soak's rates. */
const TICK_MS = 5;

/** What one producer transaction sends: the first message's number, how many, and when the send began (epoch ms). */
export type SendBatch = (first: number, count: number, beganAt: number) => Promise<void>;

const epochNow = (): number => performance.timeOrigin + performance.now();

/** What producers committed, counted until the reader takes it (a window at a time). */
export class ProducerTally {
  enqueued = 0;
  transactions = 0;
  failures = 0;
  /** Producer transaction times, send began → commit returned, ms. */
  commitMs: number[] = [];
}

/**
 * An open-loop producer: transactions of `batch` messages fall due at a steady rate, whatever the
 * database does, and are sent as they fall due, up to `maxInFlight` at once. A producer that
 * cannot keep the rate does not slow the schedule: it falls behind, and `behind` says by how many
 * messages, so that a soak tells a slow producer from a slow consumer.
 */
export class OpenLoopProducer {
  private inFlight = 0;
  private sentTransactions = 0;
  private dueTransactions = 0;
  private stopped = false;
  private running?: Promise<void>;

  constructor(
    private readonly send: SendBatch,
    private readonly tally: () => ProducerTally,
    private readonly messagesPerSecond: number,
    private readonly batch: number,
    private readonly maxInFlight: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  /** Messages that were due and not sent yet. */
  get behind(): number {
    return (this.dueTransactions - this.sentTransactions) * this.batch;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    while (this.inFlight > 0) await sleep(TICK_MS);
  }

  private async loop(): Promise<void> {
    const perTransactionMs = (1000 * this.batch) / this.messagesPerSecond;
    const started = performance.now();
    while (!this.stopped) {
      this.dueTransactions = Math.floor((performance.now() - started) / perTransactionMs) + 1;
      while (this.sentTransactions < this.dueTransactions && this.inFlight < this.maxInFlight) this.launch();
      await sleep(TICK_MS);
    }
  }

  private launch(): void {
    const first = this.sentTransactions * this.batch;
    this.sentTransactions += 1;
    this.inFlight += 1;
    const began = performance.now();
    this.send(first, this.batch, epochNow()).then(
      () => {
        this.inFlight -= 1;
        const tally = this.tally();
        tally.transactions += 1;
        tally.enqueued += this.batch;
        tally.commitMs.push(performance.now() - began);
      },
      (error: unknown) => {
        this.inFlight -= 1;
        this.tally().failures += 1;
        this.onError(error);
      },
    );
  }
}
