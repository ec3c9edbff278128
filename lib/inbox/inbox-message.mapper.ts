import type { ClaimedInboxRow } from '../claims/claimed-inbox-row.interface.js';
import type { InboxMessage } from '../interfaces/inbox-message.interface.js';

/** The message a relay transform or a pull handler receives, from a claimed row. */
export function toInboxMessage(row: ClaimedInboxRow): InboxMessage {
  return {
    id: String(row.id),
    source: row.source,
    idempotencyKey: row.idempotency_key,
    aggregateKey: row.aggregate_key,
    headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : { ...row.headers },
    payload: row.payload,
    attempt: row.attempts,
    receivedAt: new Date(row.received_at),
  };
}
