import { setTimeout as delay } from 'node:timers/promises';
import type { PendingWorkRow } from '../../shared/interfaces/pending-work.interface.js';
import type { QueueBoxTable } from '../../shared/interfaces/claim.interface.js';
import { DrainTimeoutError } from '../../shared/errors/drain-timeout.error.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import { queueBoxInternals, type QueueBoxInternals, type QueueBoxTestApp } from './queuebox-app.js';
import { drainTimedOut, drainWithoutWorkers } from './testing.messages.js';

/** The unfinished rows of one destination or source, by the database clock. @publicApi */
export type PendingWork = PendingWorkRow;

/** Options of `drain()`. @publicApi */
export interface DrainOptions {
  /** Give up after this long with a `DrainTimeoutError` listing what is left. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Also wait for rows scheduled for a later attempt (a retry after a failure, a delayed
   * enqueue) to be due and done. Default false: such rows do not hold the drain up.
   */
  includeScheduled?: boolean;
  /** How often the tables are looked at while waiting. Default 10 ms. */
  checkIntervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CHECK_INTERVAL_MS = 10;

/**
 * Resolves once the application's outbox poller, inbox relay and pull workers have nothing left
 * to do: no row of the destinations, relayed sources and pulled sources of this application is
 * due or in flight (by the database clock). It wakes the loops at once instead of waiting for
 * their poll interval, then watches the tables. Rows of destinations and sources this
 * application does not work on are not waited for.
 *
 * Throws `DrainTimeoutError` (with `pending`) when work is left at `timeoutMs`.
 * @publicApi
 */
export async function drain(app: QueueBoxTestApp, options: DrainOptions = {}): Promise<void> {
  const internals = queueBoxInternals(app, 'drain()');
  if (!internals.options.workers.enabled) throw new InvalidArgumentError('app', drainWithoutWorkers());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Wake first: a loop asleep until its poll interval claims now.
    internals.wakeUps.wakeLocal('outbox');
    internals.wakeUps.wakeLocal('inbox');
    const left = await pendingWork(internals, options.includeScheduled ?? false);
    if (left.length === 0) return;
    if (Date.now() >= deadline) throw new DrainTimeoutError(left, drainTimedOut(timeoutMs, left));
    await delay(options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
  }
}

/** The streams of this application with rows due or in flight (and scheduled, when asked). */
async function pendingWork(internals: QueueBoxInternals, includeScheduled: boolean): Promise<PendingWorkRow[]> {
  const { options, dialect, runner, pullWorkers } = internals;
  const ourStreams: Record<QueueBoxTable, { has(stream: string): boolean }> = {
    outbox: options.destinations,
    inbox: new Set([...options.inbox.relay.routes.keys(), ...pullWorkers.workers.map((worker) => worker.source)]),
  };
  const rows = await runner.run(dialect.pendingWork());
  return rows.filter((row) => {
    const ours = ourStreams[row.table].has(row.stream);
    return ours && (row.due > 0 || row.inFlight > 0 || (includeScheduled && row.scheduled > 0));
  });
}
