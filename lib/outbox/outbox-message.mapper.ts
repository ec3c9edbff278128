import type { ClaimedOutboxRow } from '../claims/claimed-outbox-row.interface.js';
import type { OutboxMessage } from '../interfaces/outbox-message.interface.js';

/** The message a publisher receives, from a claimed row. */
export function toOutboxMessage(row: ClaimedOutboxRow): OutboxMessage {
  return {
    id: String(row.id),
    messageId: row.message_id,
    destination: row.destination,
    key: row.ordering_key,
    headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : { ...row.headers },
    payload: row.payload,
    attempt: row.attempts,
  };
}
