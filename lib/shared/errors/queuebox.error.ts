/** Every error code QueueBox throws. Stable strings: match on them, not on messages. @publicApi */
export type QueueBoxErrorCode =
  | 'INVALID_OPTIONS'
  | 'UNSUPPORTED_DATABASE'
  | 'MISSING_MIGRATIONS'
  | 'INVALID_MESSAGE'
  | 'UNKNOWN_DESTINATION'
  | 'UNKNOWN_SOURCE'
  | 'PAYLOAD_TOO_LARGE'
  | 'CLAIM_LOST'
  | 'STATEMENT_TIMEOUT'
  | 'INVALID_ARGUMENT'
  | 'INVALID_PULL_WORKER'
  | 'DUPLICATE_PULL_WORKER'
  | 'PUBLISH_FAILED'
  | 'CLI_USAGE'
  | 'DEAD_LETTER_NOT_FOUND'
  | 'RECEIVE_RACED'
  | 'DRAIN_TIMEOUT'
  | 'PEER_MISSING';

/**
 * Base class of every QueueBox error. `name` is the concrete class name and the original
 * failure, if any, is chained through the standard `cause`.
 * @publicApi
 */
export class QueueBoxError extends Error {
  constructor(
    readonly code: QueueBoxErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
