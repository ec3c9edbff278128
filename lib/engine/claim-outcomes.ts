import type { OutcomeMetrics, RowOutcome } from './metrics/outcome-metrics.interface.js';
import type { Logger } from '@nestjs/common';
import type { QueueBoxEvents } from '../shared/events/queuebox-events.service.js';
import type { LostClaim } from '../shared/interfaces/admin.interface.js';
import type { LeaseAdvisor } from './leases/lease-advisor.js';
import type { ClaimerDescriptor } from '../shared/queuebox.claimers.js';
import { outboxMarkLost, rowClaimLost, rowWriteLost } from '../shared/queuebox.messages.js';
import { errorText } from '../shared/errors/error-text.js';

/** What found a claim lost: a renewal while the work ran, or one of the fenced writes. */
export type LossFinder = LostClaim['during'];

/** The claimed row an outcome is about. */
export interface ReportedRow {
  id: string;
  /** The destination (outbox) or source (relay, pull): the stream of metrics, events and the lease advisor. */
  stream: string;
  /** The fields that identify the row in log lines (ids, destination or source). */
  fields: Record<string, unknown>;
}

/** Lost claims remembered for the admin's "claims at risk": enough to see a pattern, bounded. */
const MAX_LOST_CLAIMS = 20;

/**
 * The one place where the end of a claimed row is reported, for the claim workers and the pull
 * API alike: the outcome's metric, the lease advisor's reading, the `claim.lost` event and log
 * line of a lost claim (logged once: callers report a loss only the first time they see it), and
 * the bounded memory of recent losses.
 */
export class ClaimOutcomes {
  private readonly lostClaims: LostClaim[] = [];

  constructor(
    private readonly claimer: ClaimerDescriptor,
    private readonly logger: Logger,
    private readonly metrics?: OutcomeMetrics,
    private readonly events?: QueueBoxEvents,
    private readonly advisor?: LeaseAdvisor,
  ) {}

  /** The claims lost recently, oldest first. */
  get recentLosses(): readonly LostClaim[] {
    return [...this.lostClaims];
  }

  /** A row of `stream` ended with `outcome`; `seconds`: how long its work ran, when it ran. */
  ended(stream: string, outcome: Exclude<RowOutcome, 'lost'>, seconds?: number): void {
    this.metrics?.rowEnded(this.claimer.component, stream, outcome, seconds);
  }

  /**
   * A claim was lost: found by a renewal while the work ran (`work`: the work was told to stop),
   * or by a fenced write (which changed nothing). A finishing write that lost its claim after the
   * message was sent (an outbox message, published already) is an error: the new owner sends it again.
   */
  lost(row: ReportedRow, during: LossFinder, cause?: unknown, seconds?: number): void {
    const { component, noun } = this.claimer;
    const fields = { ...row.fields, ...(cause === undefined ? {} : { error: errorText(cause) }) };
    if (during === 'finish' && this.claimer.sendsBeforeFinish) {
      this.logger.error(outboxMarkLost(row.id, String(row.fields.messageId)), fields);
    } else {
      this.logger.warn(during === 'work' ? rowClaimLost(noun, row.id) : rowWriteLost(noun, during, row.id), fields);
    }
    this.metrics?.rowEnded(component, row.stream, 'lost', seconds);
    this.lostClaims.push({ id: row.id, during, at: new Date() });
    if (this.lostClaims.length > MAX_LOST_CLAIMS) this.lostClaims.shift();
    this.events?.emit('claim.lost', { component, id: row.id, stream: row.stream, during });
  }

  /** A row was dead-lettered with `error` at its `attempt`th claim. */
  deadLettered(row: ReportedRow, attempt: number, error: string): void {
    this.events?.emit('message.dead-lettered', {
      component: this.claimer.component,
      id: row.id,
      stream: row.stream,
      attempt,
      error,
    });
  }

  /**
   * Claimed rows older than a row of their key already claimed or finished (late commits), each
   * with its key: an `order.inversion` event each, counted per stream.
   */
  inverted(rows: readonly (ReportedRow & { key: string | null })[]): void {
    const { component } = this.claimer;
    const counts = new Map<string, number>();
    for (const row of rows) {
      counts.set(row.stream, (counts.get(row.stream) ?? 0) + 1);
      this.events?.emit('order.inversion', { component, id: row.id, stream: row.stream, key: row.key });
    }
    for (const [stream, count] of counts) this.metrics?.orderInversions(component, stream, count);
  }

  /** A row's work used `durationMs` of its `leaseMs` lease (the lease advisor's reading). */
  leaseUsed(stream: string, leaseMs: number, durationMs: number, lost: boolean): void {
    this.advisor?.finished(this.claimer.component, stream, leaseMs, durationMs, lost);
  }

  /** A renewal kept a row's lease. */
  renewed(stream: string): void {
    this.advisor?.renewed(this.claimer.component, stream);
  }
}
