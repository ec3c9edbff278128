import type { ClaimedInboxRow } from '../../database/statement-results.js';
import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import type { InboxMessage } from '../../shared/interfaces/inbox-message.interface.js';
import { storedPayloadNotJson } from '../../shared/queuebox.messages.js';

/**
 * The message a relay transform or a pull handler receives, from a claimed row. The payload is
 * parsed on first read, where a failure fails the message (inside the worker's outcome path)
 * instead of the claim that returned it.
 */
export function toInboxMessage<TPayload = unknown>(row: ClaimedInboxRow): InboxMessage<TPayload> {
  const { id, payload: text } = row;
  let parsed: { value: TPayload } | undefined;
  return {
    id,
    source: row.source,
    idempotencyKey: row.idempotencyKey,
    key: row.key,
    headers: row.headers,
    get payload(): TPayload {
      parsed ??= { value: parseStored<TPayload>(text, id) };
      return parsed.value;
    },
    payloadText: text,
    attempt: row.attempts,
    receivedAt: row.receivedAt,
  };
}

function parseStored<TPayload>(text: string, id: string): TPayload {
  try {
    return JSON.parse(text) as TPayload;
  } catch (error) {
    throw new InvalidMessageError('payload', storedPayloadNotJson(id), undefined, 'INVALID_MESSAGE', { cause: error });
  }
}
