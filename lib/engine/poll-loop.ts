import { Logger } from '@nestjs/common';
import { whenAborted } from './abortable.js';
import { errorText } from '../shared/errors/error-text.js';
import type { OutageWatch } from './outage-watch.js';

/** What one tick found: `more` runs the next tick at once, `idle` sleeps until woken or the interval. */
export type TickResult = 'more' | 'idle';

/** Lifecycle of a loop; health reports it. */
export type PollLoopState = 'idle' | 'running' | 'stopping' | 'stopped';

export interface PollLoopOptions {
  name: string;
  intervalMs: number;
  /** Longest sleep after consecutive failures. */
  maxErrorBackoffMs?: number;
  tick(signal: AbortSignal): Promise<TickResult>;
  onError?(error: unknown): void;
  /**
   * Whether a failed tick is logged, its `consecutiveErrors` counted already (default: every
   * one). Loops that claim side by side fail together; their owner logs each failure once.
   */
  logsFailure?(): boolean;
  /** Called after every tick that ran to its end (the loop is alive): feeds the ticks counter. */
  onTick?(): void;
  /** Cuts an error back-off short once the database answers again after an outage. */
  outages?: OutageWatch;
}

/**
 * An awaited, abortable poll loop (never `setInterval`): one tick at a time, a sleep between idle
 * ticks that `wake()` cuts short, and a backoff after failures that keeps the loop alive.
 */
export class PollLoop {
  private readonly logger: Logger;
  private controller = new AbortController();
  private running?: Promise<void>;
  private wakeSleep?: () => void;
  /** Ends the current error back-off (`recover()`). */
  private endBackoff?: () => void;
  /** A wake-up that arrived during a tick: the next tick runs without sleeping. */
  private woken = false;

  state: PollLoopState = 'idle';
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors = 0;

  constructor(private readonly options: PollLoopOptions) {
    this.logger = new Logger(`PollLoop:${options.name}`);
  }

  start(): void {
    if (this.state === 'running') return;
    this.controller = new AbortController();
    this.state = 'running';
    this.running = this.run();
  }

  /** True while the loop sleeps between idle ticks (a wake-up would start a tick at once). */
  get sleeping(): boolean {
    return this.wakeSleep !== undefined;
  }

  /** Runs the next tick now (a new row was committed somewhere). */
  wake(): void {
    this.woken = true;
    this.wakeSleep?.();
  }

  /** Runs the next tick now if the loop is backing off after failures (the database answers again). */
  recover(): void {
    this.endBackoff?.();
  }

  /** Stops after the current tick; aborts the tick's signal and any sleep. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    this.controller.abort();
    this.wakeSleep?.();
    await this.running;
    this.state = 'stopped';
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      this.woken = false;
      let result: TickResult = 'idle';
      try {
        result = await this.options.tick(signal);
        this.lastTickAt = new Date();
        this.consecutiveErrors = 0;
        this.options.onTick?.();
      } catch (error) {
        if (signal.aborted) break;
        this.lastTickAt = new Date();
        this.lastError = error;
        this.consecutiveErrors += 1;
        if (this.options.logsFailure?.() ?? true)
          this.logger.error('poll tick failed', {
            loop: this.options.name,
            consecutiveErrors: this.consecutiveErrors,
            error: errorText(error),
          });
        this.options.onError?.(error);
        this.options.outages?.afterOutage(() => this.recover(), signal);
        await this.sleep(this.errorBackoffMs(), signal, false);
        continue;
      }
      if (result === 'idle' && !this.woken) await this.sleep(this.options.intervalMs, signal, true);
    }
  }

  private errorBackoffMs(): number {
    const cap = this.options.maxErrorBackoffMs ?? 30_000;
    return Math.min(cap, this.options.intervalMs * 2 ** Math.min(this.consecutiveErrors, 16));
  }

  private sleep(ms: number, signal: AbortSignal, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      let dispose = (): void => undefined;
      const done = (): void => {
        clearTimeout(timer);
        dispose();
        if (this.wakeSleep === done) this.wakeSleep = undefined;
        if (this.endBackoff === done) this.endBackoff = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      // A back-off after failures is not cut short by wake-ups (new rows do not make a failing
      // database work), only by the database answering again (`recover`); stop() ends either (abort).
      if (wakeable) this.wakeSleep = done;
      else this.endBackoff = done;
      dispose = whenAborted(signal, done);
    });
  }
}
