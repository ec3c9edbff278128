import type { LoopComponent, LoopSnapshot } from '../../shared/interfaces/admin.interface.js';
import type { PollLoopState } from '../../engine/poll-loop.js';
import { errorText } from '../../shared/errors/error-text.js';

/** What every loop reports: a claim worker's status, or the retention sweeper's loop. */
export interface LoopReading {
  state: PollLoopState;
  lastTickAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
  inFlight?: number;
  concurrency?: number;
  batchSize?: number;
  lostClaims?: readonly LoopSnapshot['lostClaims'][number][];
}

/** One loop as the admin shows it; ages against this replica's clock, like the loop's own tick times. */
export function loopSnapshot(
  name: string,
  component: LoopComponent,
  pollIntervalMs: number,
  reading: LoopReading,
  source?: string,
): LoopSnapshot {
  const lastTickAt = reading.lastTickAt ?? null;
  return {
    name,
    component,
    ...(source === undefined ? {} : { source }),
    state: reading.state,
    lastTickAt,
    lastTickAgeMs: lastTickAt ? Math.max(0, Date.now() - lastTickAt.getTime()) : null,
    inFlight: reading.inFlight ?? 0,
    concurrency: reading.concurrency ?? null,
    batchSize: reading.batchSize ?? null,
    consecutiveErrors: reading.consecutiveErrors,
    // The error text a tick failed with comes from the database or a publisher, never a payload.
    lastError: reading.lastError === undefined ? null : errorText(reading.lastError),
    pollIntervalMs,
    lostClaims: [...(reading.lostClaims ?? [])],
  };
}
