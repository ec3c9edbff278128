import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown by a publisher to describe a failed publish. `retryable: false` dead-letters the
 * message at once (an HTTP 400, say); `retryAfterMs` asks for a later retry than the backoff
 * would give (an HTTP `Retry-After`). Any other thrown error is a retryable failure.
 * @publicApi
 */
export class PublishFailedError extends QueueBoxError {
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, options: { retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super('PUBLISH_FAILED', message, { cause: options.cause });
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }
}
