/**
 * A received message to store.
 * @publicApi
 */
export interface InboxMessageInput {
  /** Who sent it; with the idempotency key, what makes it unique. */
  source: string;
  /** The sender's id of the message (the `X-Message-Id` of a QueueBox sender). 1 to 200 characters. */
  idempotencyKey: string;
  /** Messages of one aggregate (per source) are relayed and pulled one at a time, oldest first. */
  aggregateKey?: string | null;
  /** Any JSON-serializable value. */
  payload: unknown;
  /** Headers kept with the message (the trace context, say). */
  headers?: Record<string, string>;
}

/**
 * What `InboxService.receive` reports: `accepted` stored a new row, `duplicate` found the
 * (source, idempotency key) already stored and wrote nothing.
 * @publicApi
 */
export interface InboxReceipt {
  status: 'accepted' | 'duplicate';
  /** Row id (bigint as a string) of the stored message. */
  id: string;
}

/**
 * A stored inbox message as the relay transform and pull handlers see it.
 * @publicApi
 */
export interface InboxMessage {
  id: string;
  source: string;
  idempotencyKey: string;
  aggregateKey: string | null;
  headers: Record<string, string>;
  /** The payload as stored: its JSON text. */
  payload: string;
  /** This attempt, starting at 1. */
  attempt: number;
  receivedAt: Date;
}
