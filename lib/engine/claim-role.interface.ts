import type { EntityManager } from 'typeorm';
import type { ClaimRequest } from '../database/sql-dialect.interface.js';
import type { ClaimResult } from '../database/statement-results.js';
import type { MessageSpan } from '../shared/tracing/message-span.interface.js';
import type { ReportedRow } from './claim-outcomes.js';

/** A claimed row: its id, the token its claim wrote, its claims so far, and its key. */
export interface ClaimedRow {
  id: string;
  token: string;
  attempts: number;
  key: string | null;
  /** Claimed after a younger row of its key was claimed or finished (a late commit). */
  inverted?: boolean;
}

/** Why a row's work failed, as its worker sees it. */
export interface RowFailure {
  error: unknown;
  /** False: dead-letter now (a permanent failure); true: retry while attempts remain. */
  retryable: boolean;
  /** The destination asked for at least this delay (Retry-After). */
  retryAfterMs?: number;
  /**
   * Not the row's failure but this worker's: it cannot work on the row at all (a destination it
   * does not have). The row goes back to pending after its back-off whatever its attempts, never
   * dead, and the failure says nothing to the pace.
   */
  giveBack?: boolean;
}

/** What the work of one claimed row gets from its worker. */
export interface RowJob {
  /** Aborts when the claim is lost, or when shutdown stops the work. Made on first read. */
  readonly signal: AbortSignal;
  /** The span of the row's work, when an SDK records spans (the work runs in its context). */
  readonly span?: MessageSpan;
  /**
   * The row's finishing write (`sent` / `processed`), fenced by its claim; call it once, when the
   * work succeeded. In `manager`'s transaction when given: the row's next of key, handed on by the
   * same statement, is taken once the work returned (the transaction committed). Without one, an
   * autocommit write batched with other rows'. Throws `ClaimLostError` when the claim was lost
   * (nothing else of the work may commit), or when shutdown gave up on the row.
   */
  finish(manager?: EntityManager): Promise<void>;
}

/**
 * What a claim worker is for: how it claims, what a row's work is, and how rows are named. The
 * worker owns everything else: slots and leases, the finishing write and the hand-off, retries,
 * dead letters, lost claims, their metrics, events and logs.
 */
export interface ClaimRole<Row extends ClaimedRow> {
  /** Claims rows as `request` bounds it. */
  claim(request: ClaimRequest): Promise<ClaimResult<Row>>;
  /** Does a row's work and calls `job.finish` when it succeeded; a thrown error is a failed work. */
  work(row: Row, job: RowJob): Promise<void>;
  /** The row's stream (destination or source) and the fields that name it in log lines. */
  identify(row: Row): ReportedRow;
  /** What the worker works on, for its start-up line. */
  describe(): string;
  /** How a failed work is written: retried (the default) or dead now, after at least a delay. */
  failureOf?(error: unknown): RowFailure;
  /** Opens the span of a row's work, when an SDK records spans. */
  openSpan?(row: Row): MessageSpan | undefined;
  /** A row's work succeeded and its finishing write committed. */
  succeeded?(row: Row): void;
  /** Returns expired claims to pending (on the worker's reclaim cadence). */
  reclaim?(): Promise<void>;
  /** Samples gauges (on the worker's sample cadence); failures are logged, never fatal. */
  sample?(): Promise<void>;
}
