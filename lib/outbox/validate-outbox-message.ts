import type { OutboxInsertRow } from '../dialects/sql-dialect.interface.js';
import { InvalidMessageError } from '../errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { UnknownDestinationError } from '../errors/unknown-destination.error.js';
import type { OutboxMessageInput } from '../interfaces/outbox-message.interface.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER, SIGNATURE_HEADER } from '../queuebox.constants.js';
import { payloadNotSerializable, payloadTooLarge, unknownDestination } from '../queuebox.messages.js';
import { injectTraceContext } from '../tracing/trace-context.js';
import { uuidv7 } from './message-id.js';

/** Longest ordering key: it is an index key on both databases. */
export const MAX_KEY_LENGTH = 200;
const MAX_DELAY_MS = 2_147_483_647;
/** RFC 9110 token: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header values may not break the header block. */
const HEADER_VALUE = /^[^\r\n\0]*$/;
/** Set by QueueBox on every publish; a message may not override them. */
const RESERVED_HEADERS = new Set([MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER, SIGNATURE_HEADER, 'content-type'].map((h) => h.toLowerCase()));

/**
 * Validates and serializes one message into the row to insert, with a new message id and the
 * active trace context. `serializedPayload`, when given, is the payload's JSON text. Throws a typed error naming the field; nothing has been written then.
 */
export function toOutboxRow(input: OutboxMessageInput, options: ResolvedQueueBoxOptions, index?: number, serializedPayload?: string): OutboxInsertRow {
  if (input === null || typeof input !== 'object') throw new InvalidMessageError('message', 'A message must be an object with destination and payload.', index);
  const { destination, payload, key, headers, delayMs } = input;
  if (typeof destination !== 'string' || !options.destinations.has(destination)) {
    throw new UnknownDestinationError(String(destination), unknownDestination(String(destination), [...options.destinations.keys()]), index);
  }
  // A relayed payload is forwarded as the JSON text it arrived in (no re-parse, no lost precision).
  const serialized = serializedPayload ?? serializePayload(payload, index);
  const size = Buffer.byteLength(serialized, 'utf8');
  if (size > options.outbox.maxPayloadBytes) {
    throw new PayloadTooLargeError(size, options.outbox.maxPayloadBytes, payloadTooLarge(size, options.outbox.maxPayloadBytes), index);
  }
  if (key !== undefined && key !== null && (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH)) {
    throw new InvalidMessageError('key', `Message key must be a string of 1 to ${MAX_KEY_LENGTH} characters, or omitted for an unordered message.`, index);
  }
  if (delayMs !== undefined && (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS)) {
    throw new InvalidMessageError('delayMs', `Message delayMs must be an integer from 0 to ${MAX_DELAY_MS}.`, index);
  }
  return {
    messageId: uuidv7(),
    destination,
    key: key ?? null,
    headers: JSON.stringify(injectTraceContext(validateHeaders(headers, index))),
    payload: serialized,
    delayMs: delayMs ?? 0,
  };
}

/** JSON text of a payload, or a typed error naming `payload`. */
export function serializePayload(payload: unknown, index?: number): string {
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(payload);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidMessageError('payload', payloadNotSerializable(reason), index, 'INVALID_MESSAGE', { cause: error });
  }
  if (serialized === undefined) throw new InvalidMessageError('payload', payloadNotSerializable(`${typeof payload} has no JSON form`), index);
  return serialized;
}

/** A copy of valid user headers, or a typed error naming the header. */
export function validateHeaders(headers: unknown, index?: number): Record<string, string> {
  if (headers === undefined) return {};
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw new InvalidMessageError('headers', 'Message headers must be an object of header names to string values.', index);
  }
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new InvalidMessageError(`headers.${name}`, `Message header name "${name}" is not a valid HTTP header name.`, index);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new InvalidMessageError(`headers.${name}`, `Message header "${name}" is set by QueueBox and cannot be given.`, index);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new InvalidMessageError(`headers.${name}`, `Message header "${name}" must be a string without line breaks.`, index);
    }
    copy[name] = value;
  }
  return copy;
}
