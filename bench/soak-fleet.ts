import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type {
  SoakReplicaCommand,
  SoakReplicaConfig,
  SoakReplicaMessage,
  SoakReplicaWindow,
} from './soak-replica.process.js';

const REPLICA_ENTRY = fileURLToPath(new URL('./soak-replica.process.js', import.meta.url));

/** How long a replica may take to answer a question; an hour's soak must not hang on one that stopped answering. */
const ANSWER_TIMEOUT_MS = 30_000;

type Reply<T extends SoakReplicaMessage['type']> = Extract<SoakReplicaMessage, { type: T }>;

/**
 * The soak's replica processes, seen from the coordinator: started together, asked questions over
 * IPC, closed together. A replica that exits on its own is a failure of the run: `failure` holds
 * why, and `onFailure` is called once.
 */
export class SoakFleet {
  failure?: string;
  private readonly children: ChildProcess[] = [];
  private closing = false;

  constructor(private readonly onFailure: (reason: string) => void) {}

  async start(configs: readonly SoakReplicaConfig[]): Promise<void> {
    for (const config of configs) {
      const child = fork(REPLICA_ENTRY, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      child.once('exit', (code, signal) => {
        if (this.closing || this.failure) return;
        this.failure = `replica ${config.slot} exited (${signal ?? `code ${code}`}) during the run`;
        this.onFailure(this.failure);
      });
      this.children.push(child);
    }
    await Promise.all(this.children.map((child) => this.next(child, 'ready', 120_000)));
  }

  /** Tells every replica to produce its share of `messagesPerSecond`. */
  produce(messagesPerSecond: number, batch: number, keys: number, maxInFlight: number): void {
    const share = messagesPerSecond / this.children.length;
    const keysEach = Math.ceil(keys / this.children.length);
    for (const child of this.children)
      this.send(child, { type: 'produce', messagesPerSecond: share, batch, keys: keysEach, maxInFlight });
  }

  /** Stops every replica's producer; resolves once their transactions in flight have finished. */
  async stopProducing(): Promise<void> {
    await Promise.all(this.children.map((child) => this.ask(child, { type: 'stop-producing' }, 'stopped')));
  }

  /** Every replica's window since the previous call. */
  windows(): Promise<SoakReplicaWindow[]> {
    return Promise.all(this.children.map((child) => this.ask(child, { type: 'window' }, 'window')));
  }

  /** Messages published so far, over all replicas, and when the last one was (epoch ms). */
  async status(): Promise<{ published: number; lastPublishAt: number }> {
    const all = await Promise.all(this.children.map((child) => this.ask(child, { type: 'status' }, 'status')));
    return {
      published: all.reduce((sum, s) => sum + s.published, 0),
      lastPublishAt: Math.max(...all.map((s) => s.lastPublishAt)),
    };
  }

  /** Stops the producers and closes the applications (their shutdown waits for publishes in flight); SIGKILL for one that does not finish. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        if (child.connected) this.send(child, { type: 'close' });
        else child.kill('SIGTERM');
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  /** SIGKILL to every replica: the coordinator is going away at once (a second Ctrl-C). */
  killAll(): void {
    this.closing = true;
    for (const child of this.children) child.kill('SIGKILL');
  }

  private send(child: ChildProcess, command: SoakReplicaCommand): void {
    if (child.connected) child.send(command);
  }

  private ask<T extends SoakReplicaMessage['type']>(
    child: ChildProcess,
    command: SoakReplicaCommand,
    type: T,
  ): Promise<Reply<T>> {
    const answer = this.next(child, type, ANSWER_TIMEOUT_MS);
    this.send(child, command);
    return answer;
  }

  private next<T extends SoakReplicaMessage['type']>(
    child: ChildProcess,
    type: T,
    timeoutMs: number,
  ): Promise<Reply<T>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`replica pid ${child.pid} did not answer "${type}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onMessage = (message: SoakReplicaMessage): void => {
        if (message.type === type) finish(undefined, message as Reply<T>);
      };
      const onExit = (): void => finish(new Error(`replica pid ${child.pid} exited before it answered "${type}"`));
      function finish(error: Error | undefined, message?: Reply<T>): void {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(message!);
      }
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }
}
