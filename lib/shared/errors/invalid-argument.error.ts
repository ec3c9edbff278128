import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown when an argument of a QueueBox call is invalid (a `leaseMs` out of range, say);
 * `field` names it. Nothing was written.
 * @publicApi
 */
export class InvalidArgumentError extends QueueBoxError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('INVALID_ARGUMENT', message);
  }
}
