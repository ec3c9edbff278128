/*
 * Span attributes of the OpenTelemetry messaging semantic conventions that QueueBox sets, and its
 * own. Names are spelled out: `@opentelemetry/semantic-conventions` would be one more peer for a
 * handful of strings.
 */
export const MESSAGING_SYSTEM = 'messaging.system';
export const MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const MESSAGING_OPERATION_NAME = 'messaging.operation.name';
export const MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
export const MESSAGING_MESSAGE_ID = 'messaging.message.id';
/** QueueBox: the claim count of the row (1 on the first attempt). */
export const QUEUEBOX_ATTEMPT = 'queuebox.attempt';
/** QueueBox: how the work ended (created, sent, processed, retried, dead, lost, released, abandoned, failed). */
export const QUEUEBOX_OUTCOME = 'queuebox.outcome';

/** The value of `messaging.system`: the messages travel through QueueBox's tables. */
export const QUEUEBOX_MESSAGING_SYSTEM = 'queuebox';

/** `messaging.operation.type` values: what the span does to a message. */
export type MessagingOperationType = 'create' | 'send' | 'process';

/**
 * `messaging.operation.name` values: `enqueue` (create), `publish` (send), `relay` and `pull`
 * (process).
 */
export type MessagingOperationName = 'enqueue' | 'publish' | 'relay' | 'pull';

/** How a span's work ended, as `queuebox.outcome`. */
export type SpanOutcome =
  'created' | 'sent' | 'processed' | 'retried' | 'dead' | 'lost' | 'released' | 'abandoned' | 'failed';
