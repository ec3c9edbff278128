/**
 * A page request for dead-lettered rows.
 * @publicApi
 */
export interface DeadLetterQuery {
  /** Return rows after this id (the last id of the previous page). From the start when omitted. */
  after?: string;
  /** Page size, 1 to 1000. Default 100. */
  limit?: number;
}

/**
 * A dead-lettered outbox message: what failed and why. The payload is not included.
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
 * A dead-lettered inbox message. The payload is not included.
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
