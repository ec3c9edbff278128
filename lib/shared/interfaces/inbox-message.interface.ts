/** A received message to store. @publicApi */
export interface InboxMessageInput {
  /** Who sent it; with the idempotency key, what makes it unique. */
  source: string;
  /** The sender's id of the message (the `webhook-id` or `X-Message-Id` of a QueueBox sender). 1 to 200 characters. */
  idempotencyKey: string;
  /** The ordering key: messages of one (source, key) are relayed and pulled one at a time, oldest first. */
  key?: string | null;
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
 * A stored inbox message as the relay transform and pull handlers see it. `TPayload` types the
 * parsed payload (QueueBox does not check it: validate what you receive).
 * @publicApi
 */
export interface InboxMessage<TPayload = unknown> {
  id: string;
  source: string;
  idempotencyKey: string;
  /** The ordering key: messages of one (source, key) are handled one at a time, oldest first. */
  key: string | null;
  headers: Record<string, string>;
  /**
   * The payload, parsed from its stored JSON on first read. A stored text that is not JSON (a
   * row written around QueueBox) throws `InvalidMessageError`, which fails the message.
   */
  readonly payload: TPayload;
  /** The payload exactly as stored: its JSON text. */
  payloadText: string;
  /** This attempt, starting at 1. */
  attempt: number;
  receivedAt: Date;
}
