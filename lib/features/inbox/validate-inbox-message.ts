import type { InboxInsertRow } from '../../database/sql-dialect.interface.js';
import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../../shared/errors/payload-too-large.error.js';
import { UnknownSourceError } from '../../shared/errors/unknown-source.error.js';
import type { InboxMessageInput } from '../../shared/interfaces/inbox-message.interface.js';
import type { ResolvedInboxOptions } from '../../config/options/resolved-options.interface.js';
import { serializePayload } from '../outbox/validate-outbox-message.js';
import {
  invalidKey,
  invalidMessageShape,
  payloadTooLarge,
  serializedPayloadNotJson,
  unknownSource,
} from '../../shared/queuebox.messages.js';
import { keyProblem } from '../../config/validation/keys.js';
import { validateHeaders } from '../../config/validation/message-headers.js';

/**
 * Validates a received message into the row to insert. Throws a typed error naming the field;
 * nothing has been written then. `serializedPayload` is used as is when the caller already
 * holds the JSON text (the HTTP intake).
 */
export function toInboxRow(
  input: InboxMessageInput,
  options: ResolvedInboxOptions,
  serializedPayload?: string,
): InboxInsertRow {
  if (input === null || typeof input !== 'object')
    throw new InvalidMessageError('message', invalidMessageShape('source, idempotencyKey and payload'));
  const { source, idempotencyKey, key, headers } = input;
  checkKey(source, 'source', 'Inbox source');
  if (options.sources && !options.sources.has(source))
    throw new UnknownSourceError(source, unknownSource(source, [...options.sources.keys()]));
  checkKey(idempotencyKey, 'idempotencyKey', 'Inbox idempotencyKey');
  if (key !== undefined && key !== null) checkKey(key, 'key', 'Inbox key', true);
  const payload = serializedPayload === undefined ? serializePayload(input.payload) : checkJsonText(serializedPayload);
  const size = Buffer.byteLength(payload, 'utf8');
  if (size > options.maxPayloadBytes)
    throw new PayloadTooLargeError(
      size,
      options.maxPayloadBytes,
      payloadTooLarge(size, options.maxPayloadBytes, 'inbox.maxPayloadBytes'),
    );
  return { source, idempotencyKey, key: key ?? null, headers: JSON.stringify(validateHeaders(headers)), payload };
}

function checkKey(value: unknown, field: string, what: string, optional = false): asserts value is string {
  const problem = keyProblem(value);
  if (problem) throw new InvalidMessageError(field, invalidKey(what, problem, optional));
}

/** The caller's JSON text, once it is known to be JSON: every stored payload parses. */
function checkJsonText(text: unknown): string {
  try {
    if (typeof text === 'string') {
      JSON.parse(text);
      return text;
    }
  } catch (error) {
    throw new InvalidMessageError('serializedPayload', serializedPayloadNotJson(), undefined, 'INVALID_MESSAGE', {
      cause: error,
    });
  }
  throw new InvalidMessageError('serializedPayload', serializedPayloadNotJson());
}
