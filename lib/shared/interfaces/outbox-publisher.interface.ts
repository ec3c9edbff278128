import type { OutboxMessage } from './outbox-message.interface.js';

/** What a publisher gets besides the message. @publicApi */
export interface PublishContext {
  /**
   * Fires when the claim is lost (the publish outlived its lease and another worker may publish
   * the message too) or when shutdown gives up waiting. Pass it to your client so the request stops.
   */
  signal: AbortSignal;
}

/**
 * Sends one message to one destination. Resolve when the destination has the message. Throw a
 * `PublishFailedError` to control retries; any other error is a retryable failure.
 * @publicApi
 */
export interface OutboxPublisher {
  publish(message: OutboxMessage, context: PublishContext): Promise<void>;
}
