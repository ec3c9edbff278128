import { QueueBoxError } from './queuebox.error.js';

/**
 * A statement of QueueBox's had no answer from the database within `statementTimeoutMs`: the
 * connection is presumed dead (a network cut that sent no FIN or RST, a stalled server). The
 * connection was discarded, never returned to the pool; the work that ran the statement fails as
 * on any database error, and the row's lease and fence decide what happens to it.
 * @publicApi
 */
export class StatementTimeoutError extends QueueBoxError {
  constructor(
    readonly timeoutMs: number,
    message: string,
  ) {
    super('STATEMENT_TIMEOUT', message);
  }
}
