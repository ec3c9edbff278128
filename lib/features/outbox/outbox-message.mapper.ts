import type { ClaimedOutboxRow } from '../../database/statement-results.js';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';

/** The message a publisher receives, from a claimed row. */
export function toOutboxMessage(row: ClaimedOutboxRow): OutboxMessage {
  return {
    id: row.id,
    messageId: row.messageId,
    destination: row.destination,
    key: row.key,
    headers: row.headers,
    payload: row.payload,
    attempt: row.attempts,
  };
}
