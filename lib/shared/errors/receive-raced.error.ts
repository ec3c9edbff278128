import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown by `InboxService.receive` when its insert met an existing row of the message's
 * (source, idempotency key) on every try, and each time the row was gone when read back: a
 * retention sweep deleted it in between, every time. Nothing was stored and nothing is lost:
 * retry the receive (the HTTP intake answers 500, so that the sender retries).
 * @publicApi
 */
export class ReceiveRacedError extends QueueBoxError {
  constructor(
    readonly source: string,
    readonly idempotencyKey: string,
    readonly attempts: number,
    message: string,
  ) {
    super('RECEIVE_RACED', message);
  }
}
