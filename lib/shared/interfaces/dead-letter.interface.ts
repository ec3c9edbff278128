/**
 * A page request for dead-lettered rows, of the deprecated `OutboxService.listDead` and
 * `InboxService.listDead`.
 * @deprecated Use `DeadLetterListQuery` with `DeadLetterService.list(table, query)`: the same
 * fields, and filters.
 * @publicApi
 */
export interface DeadLetterQuery {
  /** Return rows after this id (the last id of the previous page). From the start when omitted. */
  after?: string;
  /** Page size, 1 to 1000. Default 100. */
  limit?: number;
}

/**
 * A dead-lettered outbox message, as `DeadLetterService.list('outbox')` pages them: what failed
 * and why. The payload is not included (`DeadLetterService.inspect` gives it).
 * @publicApi
 */
export interface DeadOutboxMessage {
  id: string;
  messageId: string;
  destination: string;
  key: string | null;
  attempts: number;
  lastError: string | null;
  finishedAt: Date | null;
}

/**
 * A dead-lettered inbox message, as `DeadLetterService.list('inbox')` pages them. The payload is
 * not included (`DeadLetterService.inspect` gives it).
 * @publicApi
 */
export interface DeadInboxMessage {
  id: string;
  source: string;
  idempotencyKey: string;
  key: string | null;
  attempts: number;
  lastError: string | null;
  finishedAt: Date | null;
}
