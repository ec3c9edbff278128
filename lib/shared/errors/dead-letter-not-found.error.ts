import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown when a dead letter asked for by id is not (or no longer) dead: replayed, discarded,
 * purged by retention, or never dead. `field` is `id`.
 * @publicApi
 */
export class DeadLetterNotFoundError extends QueueBoxError {
  readonly field = 'id';

  constructor(
    readonly table: 'outbox' | 'inbox',
    readonly id: string,
    message: string,
  ) {
    super('DEAD_LETTER_NOT_FOUND', message);
  }
}
