import { InvalidMessageError } from './invalid-message.error.js';

/** Thrown by `InboxService.receive` when `inbox.sources` is declared and does not name the source. @publicApi */
export class UnknownSourceError extends InvalidMessageError {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super('source', message, undefined, 'UNKNOWN_SOURCE');
  }
}
