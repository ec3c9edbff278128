import { fork, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoopSnapshot } from 'queuebox';
import type { ReplicaConfig } from './replica/replica-config.js';

type SlotState = 'starting' | 'running' | 'stopped' | 'down';

interface Slot {
  config: ReplicaConfig;
  state: SlotState;
  child?: ChildProcess;
  /** We killed it: its exit is a fault, not a crash. */
  killed: boolean;
  ready?: Promise<void>;
}

const REPLICA_ENTRY = fileURLToPath(new URL('./replica/replica.js', import.meta.url));

/**
 * The replica processes: started, restarted when they exit (a SIGKILL of ours, or a crash, which
 * is counted), paused and resumed. Each replica's output goes to its own log file.
 */
export class ReplicaFleet {
  crashes = 0;
  private readonly slots: Slot[];
  private shuttingDown = false;

  constructor(
    configs: readonly ReplicaConfig[],
    private readonly logDir: string,
    /** Told of each crash: which replica, how it ended (exit code or signal). */
    private readonly onCrash: (line: string) => void = () => undefined,
  ) {
    this.slots = configs.map((config) => ({ config, state: 'down', killed: false }));
  }

  get size(): number {
    return this.slots.length;
  }

  isRunning(slot: number): boolean {
    return this.slots[slot].state === 'running';
  }

  async start(): Promise<void> {
    await Promise.all(this.slots.map((_, i) => this.spawn(i)));
  }

  kill(slot: number): void {
    const s = this.slots[slot];
    s.killed = true;
    s.child?.kill('SIGKILL');
  }

  pause(slot: number): void {
    this.slots[slot].child?.kill('SIGSTOP');
    this.slots[slot].state = 'stopped';
  }

  resume(slot: number): void {
    const s = this.slots[slot];
    if (s.state !== 'stopped') return;
    s.child?.kill('SIGCONT');
    s.state = 'running';
  }

  /**
   * The QueueBox loops of a running replica, as its `QueueBoxAdmin.loops()` reports them;
   * undefined when the replica does not answer within `timeoutMs` (its event loop is stuck).
   */
  loops(slot: number, timeoutMs: number): Promise<LoopSnapshot[] | undefined> {
    const child = this.slots[slot].child;
    if (!child?.connected) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const onMessage = (message: { type?: string; loops?: LoopSnapshot[] }): void => {
        if (message.type === 'loops') finish(message.loops);
      };
      function finish(loops: LoopSnapshot[] | undefined): void {
        clearTimeout(timer);
        child?.off('message', onMessage);
        resolve(loops);
      }
      child.on('message', onMessage);
      child.send({ type: 'loops' });
    });
  }

  /** SIGKILL to every replica, paused or not, and no restart: the coordinator is going away. */
  killAll(): void {
    this.shuttingDown = true;
    for (const s of this.slots) s.child?.kill('SIGKILL');
  }

  /** Resumes the paused, then stops every replica with SIGTERM (SIGKILL after `graceMs`). */
  async shutdown(graceMs: number): Promise<void> {
    this.shuttingDown = true;
    await Promise.all(
      this.slots.map(async (s, i) => {
        this.resume(i);
        const child = s.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private spawn(slot: number): Promise<void> {
    const s = this.slots[slot];
    const log = openSync(join(this.logDir, `replica-${slot}.log`), 'a');
    const child = fork(REPLICA_ENTRY, [], {
      env: { ...process.env, CHAOS_REPLICA: JSON.stringify(s.config) },
      stdio: ['ignore', log, log, 'ipc'],
    });
    s.child = child;
    s.state = 'starting';
    s.killed = false;
    s.ready = new Promise<void>((resolve) => {
      child.on('message', (message: { type?: string }) => {
        if (message.type !== 'ready') return;
        if (s.state === 'starting') s.state = 'running';
        resolve();
      });
      child.once('exit', () => resolve());
    });
    child.once('exit', (code, signal) => {
      if (s.child !== child) return;
      const was = s.state;
      s.state = 'down';
      if (this.shuttingDown) return;
      if (!s.killed) {
        this.crashes += 1;
        // Its log may say nothing (a signal from outside): how it ended is the first clue.
        this.onCrash(
          `replica ${slot} ended on its own while ${was} (exit code ${code ?? '-'}, signal ${signal ?? '-'}; pid ${child.pid}); restarting it`,
        );
      }
      void this.spawn(slot);
    });
    return s.ready;
  }
}
