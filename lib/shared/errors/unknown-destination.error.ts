import { InvalidMessageError } from './invalid-message.error.js';

/** Thrown by `enqueue` when a message names a destination that is not configured. @publicApi */
export class UnknownDestinationError extends InvalidMessageError {
  constructor(
    readonly destination: string,
    message: string,
    index?: number,
  ) {
    super('destination', message, index, 'UNKNOWN_DESTINATION');
  }
}
