import type { StatementConnection } from '../statement-connection.js';
import { StatementTimeoutError } from '../../shared/errors/statement-timeout.error.js';
import { statementTimedOut } from '../../shared/queuebox.messages.js';

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/** Ends a runner's connection so the pool drops it; `pending` lets the dialect cancel it on the server first. */
export type DiscardConnection = (runner: StatementConnection, pending?: Promise<unknown>) => void;

/** `work()`, a synchronous throw turned into a rejection (the caller's deadline then ends at once). */
function start<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs `work` with a deadline: past `timeoutMs`, `expire(running)` is called and the caller gets
 * `StatementTimeoutError` at once, whatever `work` does later.
 */
export function beforeDeadline<T>(
  timeoutMs: number,
  expire: (running: Promise<T>) => void,
  work: () => Promise<T>,
): Promise<T> {
  const running = start(work);
  // One promise and one timer a statement (no race of two promises): statements run by the thousand a second.
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      expire(running);
      reject(new StatementTimeoutError(timeoutMs, statementTimedOut(timeoutMs)));
    }, timeoutMs);
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        // Once the deadline has won, the statement's own failure (the discarded connection) is no news.
        if (!expired) reject(error);
      },
    );
  });
}

/**
 * Runs `work` on `runner`'s connection with a client-side deadline: a connection cut without FIN or
 * RST never answers, and the server's `statement_timeout` error would travel the same dead
 * connection. At the deadline `discard` ends the connection and the caller gets
 * `StatementTimeoutError`. The pool wait is not included (`connectionTimeoutMillis` bounds it).
 * Not node-postgres' `query_timeout`: it leaves the query active on a connection returned to the pool.
 */
export async function withinDeadline<T>(
  runner: StatementConnection,
  timeoutMs: number,
  discard: DiscardConnection | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (!discard) return work();
  // The deadline is the database's answer, not the wait for a pooled connection: a runner given
  // up while the pool was still connecting it would get its connection later, and keep it.
  if (!runner.isReleased) await runner.connect();
  return beforeDeadline(timeoutMs, (running) => discard(runner, running), work);
}

/** A statement under a `StatementDeadlines`' watch. */
interface Watched {
  /** performance.now() at which the statement expires. */
  readonly at: number;
  settled: boolean;
  readonly expire: () => void;
}

/**
 * `beforeDeadline` for the statements of one catalog (one `timeoutMs` for all), with one timer for
 * them all instead of one set and cleared per statement.
 *
 * WHY: the statements of a key's hand-off run one at a time, so each statement's timer was the
 * only one of its duration: Node.js built and tore down a timer list for each (a tenth of the
 * node CPU of such a message). Statements start in the order they expire, so the oldest one
 * still running is the next to expire; the timer waits for it, and when it fires it expires what
 * is due and waits again for the next. A statement's end only marks it done.
 */
export class StatementDeadlines {
  private readonly watched: Watched[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly timeoutMs: number) {}

  /** As `beforeDeadline`: past `timeoutMs`, `expire(running)`, and the caller gets `StatementTimeoutError`. */
  run<T>(expire: (running: Promise<T>) => void, work: () => Promise<T>): Promise<T> {
    const running = start(work);
    return new Promise<T>((resolve, reject) => {
      const { timeoutMs } = this;
      const entry: Watched = {
        at: performance.now() + timeoutMs,
        settled: false,
        expire: () => {
          expire(running);
          reject(new StatementTimeoutError(timeoutMs, statementTimedOut(timeoutMs)));
        },
      };
      this.watched.push(entry);
      // A timer already set waits for an older statement, which expires first.
      this.timer ??= this.wait(timeoutMs);
      running.then(
        (value) => {
          if (entry.settled) return;
          entry.settled = true;
          this.dropSettled();
          resolve(value);
        },
        (error: unknown) => {
          // Once the deadline has won, the statement's own failure (the discarded connection) is no news.
          if (entry.settled) return;
          entry.settled = true;
          this.dropSettled();
          reject(error);
        },
      );
    });
  }

  /** Forgets the statements that ended at the head (the rest wait behind one still running). */
  private dropSettled(): void {
    while (this.watched.length > 0 && this.watched[0].settled) this.watched.shift();
  }

  /**
   * NOTE: unref'd: it can outlive the statements (it is not cleared when they end), and a running
   * statement's socket keeps the process alive already.
   */
  private wait(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.due(), Math.max(1, ms));
    timer.unref();
    return timer;
  }

  private due(): void {
    this.timer = undefined;
    const now = performance.now();
    this.dropSettled();
    // A timer fires on the millisecond: what is due within one is due now.
    while (this.watched.length > 0 && this.watched[0].at - now <= 1) {
      const entry = this.watched.shift()!;
      if (entry.settled) continue;
      entry.settled = true;
      entry.expire();
    }
    this.dropSettled();
    if (this.watched.length > 0) this.timer = this.wait(this.watched[0].at - now);
  }
}
