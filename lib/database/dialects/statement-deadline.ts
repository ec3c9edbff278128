import type { QueryRunner } from 'typeorm';
import { StatementTimeoutError } from '../../shared/errors/statement-timeout.error.js';
import { statementTimedOut } from '../../shared/queuebox.messages.js';

/** The default of the `statementTimeoutMs` option. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * Ends a runner's connection, so that the pool discards it (dialect-profile.interface.ts,
 * `discardConnection`). `pending` is the statement that ran out of time: the dialect may wait for
 * it to end on the server (a cancel) before the connection's place in the pool is freed.
 */
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
 * Runs `work` (statements on `runner`'s connection) with a client-side deadline. A statement on a
 * connection that a network cut left open without FIN or RST never gets an answer, and the
 * server's `statement_timeout` cannot help: its error would travel the same dead connection. At
 * the deadline the connection is discarded (`discard`: the dialect stops the statement on the
 * server where it can, ends the connection, which fails its pending statement, and makes the pool
 * drop it instead of handing it out again), and the caller gets `StatementTimeoutError`.
 *
 * The wait for a connection from the pool is not part of the deadline (the pool's own
 * `connectionTimeoutMillis` bounds it).
 *
 * node-postgres' own `query_timeout` is not used: it fails the query but leaves it active on the
 * connection, which then goes back to the pool busy, and every later query on it waits behind it.
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
