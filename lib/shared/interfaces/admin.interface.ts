import type { DeadInboxMessage, DeadOutboxMessage } from './dead-letter.interface.js';

import type { ClaimComponent, QueueBoxTable } from './claim.interface.js';

export type { QueueBoxTable } from './claim.interface.js';

/** What a loop is: the outbox poller, the inbox relay, a pull worker, or the retention sweeper. @publicApi */
export type LoopComponent = ClaimComponent | 'retention';

/**
 * A claim this replica lost recently: its row was taken over by another claim (or the lease ran
 * out) before the work finished.
 * @publicApi
 */
export interface LostClaim {
  /** The row id. */
  id: string;
  /** What found the loss: the renewal during the work, or the finishing write. */
  during: 'work' | 'retry' | 'dead-letter' | 'finish';
  /** When this replica noticed (its own clock). */
  at: Date;
}

/** One loop of this replica, as of now. @publicApi */
export interface LoopSnapshot {
  /** `outbox`, `relay`, `pull:<source>` or `retention`: unique per replica. */
  name: string;
  component: LoopComponent;
  /** The inbox source of a pull worker. */
  source?: string;
  state: 'idle' | 'running' | 'stopping' | 'stopped';
  lastTickAt: Date | null;
  /** Milliseconds since the last tick, or null before the first. */
  lastTickAgeMs: number | null;
  /** Rows being worked on (0 for the retention sweeper). */
  inFlight: number;
  /**
   * Rows the loop may work on at once now: its limit of `inFlight` (claim loops; null for the
   * retention sweeper). Moves with the load under the adaptive pace.
   */
  concurrency: number | null;
  /** Most rows one claim asks for now (claim loops; null for the retention sweeper). */
  batchSize: number | null;
  consecutiveErrors: number;
  /** The last tick failure, as text (never a payload). */
  lastError: string | null;
  pollIntervalMs: number;
  /** Claims lost recently, newest last (claim loops only; at most 20). */
  lostClaims: LostClaim[];
}

/** Pending rows of one destination (outbox) or source (inbox). @publicApi */
export interface BacklogEntry {
  /** The destination (outbox) or source (inbox). */
  name: string;
  pending: number;
  /** Age of the oldest pending row, by the database clock. */
  oldestAgeSeconds: number;
}

/** The backlog of both tables. @publicApi */
export interface Backlog {
  outbox: BacklogEntry[];
  inbox: BacklogEntry[];
}

/**
 * An ordering key (outbox: per destination; inbox: per source) whose head row keeps failing
 * (`retrying`: it holds every younger row of the key back) or is dead (`dead`: younger rows went
 * on without it, so the key has a gap an operator should replay or discard).
 * @publicApi
 */
export interface BlockedKey {
  table: QueueBoxTable;
  /** The destination (outbox) or source (inbox). */
  stream: string;
  key: string;
  /** The head row. */
  id: string;
  reason: 'retrying' | 'dead';
  attempts: number;
  lastError: string | null;
  /** Age of the head row (since it was written or received), by the database clock. */
  ageSeconds: number;
  /** Pending rows of the key after the head. */
  waiting: number;
}

/**
 * A row in flight whose lease ends within the asked window (or already ended: `expiresInMs` is
 * then negative, and the reclaim step will give the row to another claim).
 * @publicApi
 */
export interface ClaimAtRisk {
  table: QueueBoxTable;
  id: string;
  stream: string;
  key: string | null;
  attempts: number;
  claimedAt: Date;
  leaseExpiresAt: Date;
  expiresInMs: number;
}

/** Claims at risk: leases about to end (from the database), and claims this replica lost recently. @publicApi */
export interface ClaimsAtRisk {
  expiring: ClaimAtRisk[];
  lost: (LostClaim & { loop: string })[];
}

/**
 * Where a row is now: after a replay, `pending`, `processing`, then `sent` (outbox) or `processed`
 * (inbox), or `dead` again.
 * @publicApi
 */
export interface RowStateRow {
  id: string;
  state: 'pending' | 'processing' | 'sent' | 'processed' | 'dead';
  attempts: number;
}

/** A filter of dead letters. Every field is optional; given fields must all match. @publicApi */
export interface DeadLetterFilter {
  /** Outbox only: the destination. */
  destination?: string;
  /** Inbox only: the source. */
  source?: string;
  /** Part of the last error text (case-insensitive). */
  errorContains?: string;
  /** Dead at or after this instant (a Date or an ISO 8601 text with a time zone). */
  deadSince?: Date | string;
  /** Dead before this instant. */
  deadBefore?: Date | string;
}

/** A page request of dead letters: a filter and a keyset position. @publicApi */
export interface DeadLetterListQuery extends DeadLetterFilter {
  /** Rows after this id (the `next` of the previous page). */
  after?: string;
  /** Page size, 1 to 1000. Default 100. */
  limit?: number;
}

/**
 * A page of dead letters, oldest first. `next` is the `after` of the next page; it is absent when
 * the page was not full (a full last page has a `next` whose page is empty).
 * @publicApi
 */
export interface DeadLetterPage<Row> {
  items: Row[];
  next?: string;
}

/** One dead letter in full: its headers, its times, and its payload when asked for. @publicApi */
export interface DeadLetterDetail {
  table: QueueBoxTable;
  id: string;
  /** Outbox: the message id (`X-Message-Id`). */
  messageId?: string;
  /** The destination (outbox) or source (inbox). */
  stream: string;
  /** Inbox: the idempotency key. */
  idempotencyKey?: string;
  key: string | null;
  attempts: number;
  lastError: string | null;
  headers: Record<string, string>;
  createdAt: Date;
  finishedAt: Date | null;
  /** The stored payload text; only when asked for. */
  payload?: string;
}

/** Which dead letters a replay or discard takes: listed ids, or every row matching a filter. @publicApi */
export type DeadLetterSelection = { ids: readonly string[] } | { filter: DeadLetterFilter };

/** How a replay or discard runs. @publicApi */
export interface DeadLetterBatchOptions {
  /** Rows per statement (each its own short transaction), 1 to 1000. Default 500. */
  chunkSize?: number;
  /** Who asked, for the log line (an operator's name, a token's label). */
  actor?: string;
}

/** What a replay or discard did. @publicApi */
export interface DeadLetterBatchResult {
  /** Rows replayed or discarded. */
  count: number;
  /** Statements run. */
  chunks: number;
  /** The ids, in id order, for a selection by ids. */
  ids?: string[];
}

/** The dead-letter row type of a table. @publicApi */
export type DeadLetterOf<T extends QueueBoxTable> = T extends 'outbox' ? DeadOutboxMessage : DeadInboxMessage;
