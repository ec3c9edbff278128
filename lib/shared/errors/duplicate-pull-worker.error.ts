import { QueueBoxError } from './queuebox.error.js';

/** Thrown at start-up when two `@PullWorker` classes consume the same source. @publicApi */
export class DuplicatePullWorkerError extends QueueBoxError {
  constructor(
    readonly source: string,
    readonly workerClasses: readonly string[],
    message: string,
  ) {
    super('DUPLICATE_PULL_WORKER', message);
  }
}
