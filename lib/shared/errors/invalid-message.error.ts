import { QueueBoxError, type QueueBoxErrorCode } from './queuebox.error.js';

/**
 * Thrown by `enqueue` before anything is written when a message is invalid. `field` names the
 * offending field and `index` the message's position when a list was enqueued.
 * @publicApi
 */
export class InvalidMessageError extends QueueBoxError {
  constructor(
    readonly field: string,
    message: string,
    readonly index?: number,
    code: QueueBoxErrorCode = 'INVALID_MESSAGE',
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
