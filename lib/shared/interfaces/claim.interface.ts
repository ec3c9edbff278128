/**
 * The three claimers that share the claim mechanism: the outbox poller, the inbox relay and pull
 * workers. The `component` of claims, events and lease advice, and of the metrics' `component` label.
 * @publicApi
 */
export type ClaimComponent = 'outbox' | 'relay' | 'pull';

/** The two QueueBox tables: the outbox, and the inbox (claimed by the relay and by pull workers). @publicApi */
export type QueueBoxTable = 'outbox' | 'inbox';

/**
 * Proof of ownership of one row: its id and the random token the claim wrote. Immutable; a new
 * claim of the row makes a new token, and nothing ever reuses one.
 * @publicApi
 */
export interface Claim {
  readonly component: ClaimComponent;
  readonly id: string;
  readonly token: string;
  readonly leaseMs: number;
}

/** What a fenced write reports. `lost`: it changed no row, and the caller changes nothing more. */
export type FenceResult = 'ok' | 'lost';
