import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown at bootstrap when an option is invalid. `path` names the option (for example
 * `outbox.claimTimeoutMs`) and the message says what is allowed.
 * @publicApi
 */
export class InvalidQueueBoxOptionsError extends QueueBoxError {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super('INVALID_OPTIONS', message);
  }
}
