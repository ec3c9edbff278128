/**
 * The destination names of your application, to have them checked at compile time. Empty, any
 * string is a destination name; augment it to list yours:
 *
 * ```ts
 * declare module 'queuebox' {
 *   interface QueueBoxDestinations { billing: true; shipping: true }
 * }
 * ```
 * @publicApi
 */
export interface QueueBoxDestinations {}

/** A destination name: one of `QueueBoxDestinations` when augmented, else any string. @publicApi */
export type DestinationName = [keyof QueueBoxDestinations] extends [never]
  ? string
  : Extract<keyof QueueBoxDestinations, string>;

/** A message to enqueue. `TPayload` types the payload you pass. @publicApi */
export interface OutboxMessageInput<TPayload = unknown> {
  /** A configured destination name. */
  destination: DestinationName;
  /** Any JSON-serializable value. */
  payload: TPayload;
  /** Ordering key: messages of one key are published one at a time, oldest first. Omitted or null: unordered. */
  key?: string | null;
  /**
   * Extra headers published with the message (string values). `enqueue` refuses those the
   * destination refuses: a header an `http` destination sets itself, `CC`/`BCC` for `rabbitmq`,
   * `Nats-*` for `nats`.
   */
  headers?: Record<string, string>;
  /** Publish no earlier than this many milliseconds after the insert (database clock). */
  delayMs?: number;
}

/** A message as a publisher receives it. @publicApi */
export interface OutboxMessage {
  /** Row id (bigint as a string). */
  id: string;
  /** The `X-Message-Id`: a time-ordered UUID, stable for the row's whole life. */
  messageId: string;
  destination: string;
  key: string | null;
  /** User headers plus the stored trace context (`traceparent`, `tracestate`). */
  headers: Record<string, string>;
  /** The payload as stored: its JSON text. */
  payload: string;
  /** This publish attempt, starting at 1. */
  attempt: number;
}

/** What `enqueue` returns for each message, in input order. @publicApi */
export interface EnqueuedMessage {
  id: string;
  messageId: string;
}
