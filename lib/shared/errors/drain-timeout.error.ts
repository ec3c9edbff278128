import type { PendingWorkRow as PendingWork } from '../interfaces/pending-work.interface.js';
import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown by `drain()` (queuebox/testing) when rows were still due or in flight at its timeout;
 * `pending` lists them per destination and source, by the database clock.
 * @publicApi
 */
export class DrainTimeoutError extends QueueBoxError {
  constructor(
    readonly pending: readonly PendingWork[],
    message: string,
  ) {
    super('DRAIN_TIMEOUT', message);
  }
}
