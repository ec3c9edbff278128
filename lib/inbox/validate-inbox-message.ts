import type { InboxInsertRow } from '../dialects/sql-dialect.interface.js';
import { InvalidMessageError } from '../errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { UnknownSourceError } from '../errors/unknown-source.error.js';
import type { InboxMessageInput } from '../interfaces/inbox-message.interface.js';
import type { ResolvedInboxOptions } from '../options/resolved-options.interface.js';
import { payloadTooLarge, unknownSource } from '../queuebox.messages.js';
import { serializePayload, validateHeaders } from '../outbox/validate-outbox-message.js';

/** Longest idempotency key, source and aggregate key: index keys on both databases. */
export const MAX_INBOX_KEY_LENGTH = 200;

/**
 * Validates a received message into the row to insert. Throws a typed error naming the field;
 * nothing has been written then. `serializedPayload` is used as is when the caller already
 * holds the JSON text (the HTTP intake).
 */
export function toInboxRow(input: InboxMessageInput, options: ResolvedInboxOptions, serializedPayload?: string): InboxInsertRow {
  if (input === null || typeof input !== 'object') throw new InvalidMessageError('message', 'A received message must be an object with source, idempotencyKey and payload.');
  const { source, idempotencyKey, aggregateKey, headers } = input;
  if (!isKey(source)) throw new InvalidMessageError('source', `Inbox source must be a string of 1 to ${MAX_INBOX_KEY_LENGTH} characters.`);
  if (options.sources && !options.sources.has(source)) throw new UnknownSourceError(source, unknownSource(source, [...options.sources.keys()]));
  if (!isKey(idempotencyKey)) throw new InvalidMessageError('idempotencyKey', `Inbox idempotencyKey must be a string of 1 to ${MAX_INBOX_KEY_LENGTH} characters.`);
  if (aggregateKey !== undefined && aggregateKey !== null && !isKey(aggregateKey)) {
    throw new InvalidMessageError('aggregateKey', `Inbox aggregateKey must be a string of 1 to ${MAX_INBOX_KEY_LENGTH} characters, or omitted for an unordered message.`);
  }
  const payload = serializedPayload ?? serializePayload(input.payload);
  const size = Buffer.byteLength(payload, 'utf8');
  if (size > options.maxPayloadBytes) throw new PayloadTooLargeError(size, options.maxPayloadBytes, payloadTooLarge(size, options.maxPayloadBytes, 'inbox.maxPayloadBytes'));
  return { source, idempotencyKey, aggregateKey: aggregateKey ?? null, headers: JSON.stringify(validateHeaders(headers)), payload };
}

function isKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_INBOX_KEY_LENGTH;
}
