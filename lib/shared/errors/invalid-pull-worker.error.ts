import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown at start-up for a `@PullWorker` class QueueBox cannot run: it does not extend
 * `PullWorkerHost`, it is request-scoped, or an option is invalid (`field` names it).
 * @publicApi
 */
export class InvalidPullWorkerError extends QueueBoxError {
  constructor(
    readonly workerClass: string,
    message: string,
    readonly field?: string,
  ) {
    super('INVALID_PULL_WORKER', message);
  }
}
