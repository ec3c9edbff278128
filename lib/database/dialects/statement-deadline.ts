import type { QueryRunner } from 'typeorm';
import { StatementTimeoutError } from '../../shared/errors/statement-timeout.error.js';
import { statementTimedOut } from '../../shared/queuebox.messages.js';

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/** Ends a runner's connection so the pool drops it; `pending` lets the dialect cancel it on the server first. */
export type DiscardConnection = (runner: QueryRunner, pending?: Promise<unknown>) => void;

/**
 * Runs `work` with a deadline: past `timeoutMs`, `expire(running)` is called and the caller gets
 * `StatementTimeoutError` at once, whatever `work` does later.
 */
export async function beforeDeadline<T>(
  timeoutMs: number,
  expire: (running: Promise<T>) => void,
  work: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const running = work();
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      expire(running);
      reject(new StatementTimeoutError(timeoutMs, statementTimedOut(timeoutMs)));
    }, timeoutMs);
  });
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
    // Once the deadline has won, the statement's own failure (the discarded connection) is no news.
    running.catch(() => undefined);
  }
}

/**
 * Runs `work` on `runner`'s connection with a client-side deadline: a connection cut without FIN or
 * RST never answers, and the server's `statement_timeout` error would travel the same dead
 * connection. At the deadline `discard` ends the connection and the caller gets
 * `StatementTimeoutError`. The pool wait is not included (`connectionTimeoutMillis` bounds it).
 * Not node-postgres' `query_timeout`: it leaves the query active on a connection returned to the pool.
 */
export async function withinDeadline<T>(
  runner: QueryRunner,
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
