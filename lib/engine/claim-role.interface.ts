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

export interface RowFailure {
  error: unknown;
  /** False: dead-letter now (a permanent failure); true: retry while attempts remain. */
  retryable: boolean;
  /** The destination asked for at least this delay (Retry-After). */
  retryAfterMs?: number;
  /** This worker cannot work on the row (a destination it lacks): back to pending, never dead, pace unaffected. */
  giveBack?: boolean;
}

/** What the work of one claimed row gets from its worker. */
export interface RowJob {
  /** Aborts when the claim is lost, or when shutdown stops the work. Made on first read. */
  readonly signal: AbortSignal;
  /** The span of the row's work, when an SDK records spans (the work runs in its context). */
  readonly span?: MessageSpan;
  /**
   * The row's fenced finishing write; call it once, when the work succeeded. With `manager`, in its
   * transaction (the handed-on row is taken after the work returns); else batched in autocommit.
   * Throws `ClaimLostError` when the claim was lost or shutdown gave up on the row.
   */
  finish(manager?: EntityManager): Promise<void>;
}

/** What a claim worker is for: how it claims, what a row's work is. The worker owns everything else. */
export interface ClaimRole<Row extends ClaimedRow> {
  claim(request: ClaimRequest): Promise<ClaimResult<Row>>;
  /**
   * Does a row's work and calls `job.finish` when it succeeded (unless `finishAfterWork`); a thrown
   * error is a failed work.
   */
  work(row: Row, job: RowJob): Promise<void>;
  /**
   * The worker writes the row's finishing write itself, batched in autocommit, once `work`
   * resolved (as `job.finish()` would), and `work` never calls `job.finish`: a row then costs no
   * async frame of the role's or of the finishing write's.
   */
  readonly finishAfterWork?: boolean;
  /**
   * The row's stream (destination or source): the label of its outcome and its lease reading. A
   * string, no object: asked for on every row, where `identify` is asked for on rare paths only.
   */
  stream(row: Row): string;
  /** The row's stream (`stream(row)`) and the fields that name it in log lines. */
  identify(row: Row): ReportedRow;
  describe(): string;
  /** How a failed work is written: retried (the default) or dead now, after at least a delay. */
  failureOf?(error: unknown): RowFailure;
  openSpan?(row: Row): MessageSpan | undefined;
  succeeded?(row: Row): void;
  reclaim?(): Promise<void>;
  /** Samples gauges (on the worker's sample cadence); failures are logged, never fatal. */
  sample?(): Promise<void>;
}
