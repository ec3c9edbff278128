import type { EntityManager } from 'typeorm';
import type { Claim } from './claim.interface.js';
import type { InboxMessage } from './inbox-message.interface.js';
import type { BackoffOptions } from './queuebox-options.interface.js';

/**
 * A message claimed by a pull client: the message plus the claim that proves ownership. Pass it
 * back to `PullService.renew/complete/retry/deadLetter`.
 * @publicApi
 */
export interface PulledMessage<TPayload = unknown> extends InboxMessage<TPayload> {
  readonly claim: Claim;
}

/** Options of `PullService.claim` / `claimBatch`. @publicApi */
export interface PullClaimOptions {
  /** The lease (`lease_ms`), from the database clock; renew every third of it. 100 ms to 24.8 days. */
  leaseMs: number;
  /** Serialize claims of this source with the per-source claim lock (closes the out-of-order-commit window). Default false. */
  claimLock?: boolean;
}

/** What a pull handler gets with each message. @publicApi */
export interface PullContext {
  /** The transaction QueueBox opened for this message: write your business change with it. */
  manager: EntityManager;
  /** Aborts when the claim is lost or shutdown begins: stop work; the transaction will roll back. */
  signal: AbortSignal;
  /** Deduplicate external side effects (outside the transaction) on this pair. */
  source: string;
  idempotencyKey: string;
}

/** Options of `@PullWorker(source, options)`. @publicApi */
export interface PullWorkerOptions {
  /** Lease per claim, renewed every third of it while `handle` runs. Default 30000. */
  leaseMs?: number;
  /** Messages handled at once per instance. Default 1. */
  concurrency?: number;
  /**
   * Messages claimed ahead of the free slots, waiting for one: the next batch is claimed while the
   * current one runs, so slots do not stay empty for the length of a claim. Their leases are kept
   * while they wait; shutdown gives them back unhandled. 0 claims only into free slots (a message
   * then never waits in this instance while another instance is idle). Default: `concurrency`.
   */
  claimAhead?: number;
  /** Attempts before a message is marked `dead`. Default 10. */
  maxAttempts?: number;
  /** Delay before a retry of a failed handler. */
  backoff?: BackoffOptions;
  /** Fallback poll interval when no wake-up arrives. Default 1000. */
  pollIntervalMs?: number;
  /** Serialize claims of this source (the outbox's `claimLock`, per source). Default false. */
  claimLock?: boolean;
  /** How long shutdown waits for running handlers. Default: `outbox.shutdownTimeoutMs`. */
  shutdownTimeoutMs?: number;
}
