import type { OutboxInsertRow } from '../../database/sql-dialect.interface.js';
import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../../shared/errors/payload-too-large.error.js';
import { UnknownDestinationError } from '../../shared/errors/unknown-destination.error.js';
import type { OutboxMessageInput } from '../../shared/interfaces/outbox-message.interface.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { MAX_INTERVAL_MS } from '../../config/queuebox.limits.js';
import {
  headerNotForDestination,
  invalidDelay,
  invalidKey,
  invalidMessageShape,
  payloadNotSerializable,
  payloadTooLarge,
  unknownDestination,
} from '../../shared/queuebox.messages.js';
import { refusedDestinationHeader } from '../../config/options/destination-headers.js';
import { keyProblem } from '../../config/validation/keys.js';
import { validateHeaders } from '../../config/validation/message-headers.js';
import type { CreateSpans } from '../../shared/tracing/create-spans.js';
import { injectTraceContext } from '../../shared/tracing/trace-context.js';
import { uuidv7 } from './message-id.js';

/**
 * Validates and serializes one message into the row to insert, with a new message id and the
 * active trace context: the context of its own `create` span when `spans` is given (an SDK records
 * spans), else the caller's. `serializedPayload`, when given, is the payload's JSON text. Throws
 * a typed error naming the field; nothing has been written then.
 */
export function toOutboxRow(
  input: OutboxMessageInput,
  options: ResolvedQueueBoxOptions,
  index?: number,
  serializedPayload?: string,
  spans?: CreateSpans,
): OutboxInsertRow {
  if (input === null || typeof input !== 'object')
    throw new InvalidMessageError('message', invalidMessageShape('destination and payload'), index);
  const { destination, payload, key, headers, delayMs } = input;
  if (typeof destination !== 'string' || !options.destinations.has(destination)) {
    throw new UnknownDestinationError(
      String(destination),
      unknownDestination(String(destination), [...options.destinations.keys()]),
      index,
    );
  }
  // A relayed payload is forwarded as the JSON text it arrived in (no re-parse, no lost precision).
  const serialized = serializedPayload ?? serializePayload(payload, index);
  const size = Buffer.byteLength(serialized, 'utf8');
  if (size > options.outbox.maxPayloadBytes) {
    throw new PayloadTooLargeError(
      size,
      options.outbox.maxPayloadBytes,
      payloadTooLarge(size, options.outbox.maxPayloadBytes),
      index,
    );
  }
  const keyFault = key === undefined || key === null ? undefined : keyProblem(key);
  if (keyFault) throw new InvalidMessageError('key', invalidKey('Message key', keyFault, true), index);
  if (delayMs !== undefined && (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_INTERVAL_MS)) {
    throw new InvalidMessageError('delayMs', invalidDelay(MAX_INTERVAL_MS), index);
  }
  const stored = validateHeaders(headers, index);
  // A header the transport would act on (or the destination sets itself) is refused here, in the
  // caller's transaction, rather than at publish time, where it would fail or mislead.
  const refused = refusedDestinationHeader(options.destinations.get(destination)!, stored);
  if (refused)
    throw new InvalidMessageError(
      `headers.${refused.name}`,
      headerNotForDestination(refused.name, destination, refused.problem),
      index,
    );
  const messageId = uuidv7();
  return {
    messageId,
    destination,
    key: key ?? null,
    headers: JSON.stringify(spans ? spans.inject(stored, destination, messageId) : injectTraceContext(stored)),
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
    throw new InvalidMessageError('payload', payloadNotSerializable(reason), index, 'INVALID_MESSAGE', {
      cause: error,
    });
  }
  if (serialized === undefined)
    throw new InvalidMessageError('payload', payloadNotSerializable(`${typeof payload} has no JSON form`), index);
  return serialized;
}
