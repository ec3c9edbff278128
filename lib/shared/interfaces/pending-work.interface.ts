import type { QueueBoxTable } from './claim.interface.js';

/**
 * The unfinished rows of one stream (an outbox destination or an inbox source), by the database
 * clock: due now, in flight (claimed), or waiting for a later attempt.
 */
export interface PendingWorkRow {
  table: QueueBoxTable;
  stream: string;
  due: number;
  inFlight: number;
  scheduled: number;
  /** When the next scheduled row is due, in ms from now; undefined when none is scheduled. */
  nextDueInMs?: number;
}
