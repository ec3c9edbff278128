/** A row as the outbox claim returns it (PostgreSQL column names; bigint ids as strings). */
export interface ClaimedOutboxRow {
  id: string;
  message_id: string;
  destination: string;
  ordering_key: string | null;
  headers: Record<string, string> | string;
  payload: string;
  claim_token: string;
  attempts: number;
  inverted: boolean;
}
