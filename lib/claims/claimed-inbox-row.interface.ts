/** A row as the inbox claims return it (PostgreSQL column names; bigint ids as strings). */
export interface ClaimedInboxRow {
  id: string;
  source: string;
  idempotency_key: string;
  ordering_key: string | null;
  headers: Record<string, string> | string;
  payload: string;
  claim_token: string;
  attempts: number;
  received_at: Date;
  inverted?: boolean;
}
