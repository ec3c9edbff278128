import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { ClaimComponent, QueueBoxTable } from '../../shared/interfaces/claim.interface.js';
import type { OutcomeMetrics } from './outcome-metrics.interface.js';
import type { RowOutcome } from './outcome-metrics.interface.js';
import { HealthSignals } from './health-signals.js';
import {
  CLAIMS_LOST_TOTAL,
  LOOP_BATCH_SIZE,
  LOOP_CONCURRENCY,
  LOOP_ERRORS_TOTAL,
  LOOP_TICKS_TOTAL,
  OUTBOX_BACKLOG_MESSAGES,
  OUTBOX_MESSAGES_PUBLISHED_TOTAL,
  OUTBOX_MESSAGES_RECLAIMED_TOTAL,
  OUTBOX_OLDEST_PENDING_AGE_SECONDS,
  OUTBOX_ORDER_INVERSIONS_TOTAL,
  OUTBOX_PUBLISH_DURATION_SECONDS,
  OUTBOX_UNKNOWN_DESTINATION_MESSAGES,
  INBOX_BACKLOG_MESSAGES,
  INBOX_MESSAGES_RECEIVED_TOTAL,
  INBOX_MESSAGES_RELAYED_TOTAL,
  INBOX_OLDEST_PENDING_AGE_SECONDS,
  INBOX_RELAY_FAILURES_TOTAL,
  INBOX_RELAY_ORDER_INVERSIONS_TOTAL,
  INBOX_UNKNOWN_SOURCE_MESSAGES,
  PULL_HANDLER_DURATION_SECONDS,
  PULL_MESSAGES_HANDLED_TOTAL,
  PULL_ORDER_INVERSIONS_TOTAL,
  ROWS_PURGED_TOTAL,
  type PublishOutcome,
  type PullOutcome,
  type ReceiveOutcome,
  type RelayFailureOutcome,
} from './queuebox.metrics.js';

/** The metrics of one claimer's rows: how each ended, and the rows its claims took out of order. */
interface ClaimerMetrics {
  ended(stream: string, outcome: RowOutcome, seconds?: number): void;
  inverted(stream: string, count: number): void;
}

/** One destination's publish metrics: its duration histogram's child, its attempt counter's label sets. */
interface PublishLabels {
  duration: Histogram.Internal<'destination'>;
  byOutcome: Partial<Record<PublishOutcome, { destination: string; outcome: PublishOutcome }>>;
}

/** Intent-named recording of QueueBox's metrics, so loops never touch label names. */
@Injectable()
export class QueueBoxMetrics implements OutcomeMetrics {
  /** What health thresholds read: the last backlog samples and recent dead letters. */
  readonly signals = new HealthSignals();
  private readonly publishLabelSets = new Map<string, PublishLabels>();
  /**
   * Each claimer's metrics: publish attempts by destination (with the publish's duration), relay
   * forwards and failures by source, pull outcomes by source (the handler's duration for the rows
   * it processed); the outbox's inversion counter has no label, the others' are by source.
   */
  private readonly claimers: { readonly [C in ClaimComponent]: ClaimerMetrics } = {
    outbox: {
      ended: (destination, outcome, seconds) =>
        this.outboxPublishAttempt(destination, outcome === 'done' ? 'sent' : outcome, seconds),
      inverted: (_destination, count) => this.outboxOrderInversions(count),
    },
    relay: {
      ended: (source, outcome) =>
        outcome === 'done' ? this.inboxRelayed(source) : this.inboxRelayFailed(source, outcome),
      inverted: (source, count) => this.relayOrderInversions(source, count),
    },
    pull: {
      ended: (source, outcome, seconds) =>
        this.pullHandled(source, outcome === 'done' ? 'processed' : outcome, outcome === 'done' ? seconds : undefined),
      inverted: (source, count) => this.pullOrderInversions(source, count),
    },
  };

  constructor(
    @InjectMetric(CLAIMS_LOST_TOTAL) private readonly claimsLost: Counter<'component'>,
    @InjectMetric(OUTBOX_MESSAGES_RECLAIMED_TOTAL) private readonly outboxReclaimed: Counter,
    @InjectMetric(OUTBOX_ORDER_INVERSIONS_TOTAL) private readonly outboxInversions: Counter,
    @InjectMetric(OUTBOX_MESSAGES_PUBLISHED_TOTAL) private readonly outboxPublished: Counter<'destination' | 'outcome'>,
    @InjectMetric(OUTBOX_PUBLISH_DURATION_SECONDS) private readonly publishDuration: Histogram<'destination'>,
    @InjectMetric(OUTBOX_BACKLOG_MESSAGES) private readonly outboxBacklog: Gauge<'destination'>,
    @InjectMetric(OUTBOX_OLDEST_PENDING_AGE_SECONDS) private readonly outboxOldestAge: Gauge<'destination'>,
    @InjectMetric(LOOP_ERRORS_TOTAL) private readonly loopErrors: Counter<'loop'>,
    @InjectMetric(INBOX_MESSAGES_RECEIVED_TOTAL) private readonly inboxReceivedTotal: Counter<'source' | 'outcome'>,
    @InjectMetric(INBOX_MESSAGES_RELAYED_TOTAL) private readonly inboxRelayedTotal: Counter<'source'>,
    @InjectMetric(INBOX_RELAY_FAILURES_TOTAL) private readonly inboxRelayFailures: Counter<'source' | 'outcome'>,
    @InjectMetric(INBOX_RELAY_ORDER_INVERSIONS_TOTAL) private readonly relayInversions: Counter<'source'>,
    @InjectMetric(INBOX_BACKLOG_MESSAGES) private readonly inboxBacklog: Gauge<'source'>,
    @InjectMetric(INBOX_OLDEST_PENDING_AGE_SECONDS) private readonly inboxOldestAge: Gauge<'source'>,
    @InjectMetric(PULL_MESSAGES_HANDLED_TOTAL) private readonly pullHandledTotal: Counter<'source' | 'outcome'>,
    @InjectMetric(PULL_HANDLER_DURATION_SECONDS) private readonly pullDuration: Histogram<'source'>,
    @InjectMetric(PULL_ORDER_INVERSIONS_TOTAL) private readonly pullInversions: Counter<'source'>,
    @InjectMetric(ROWS_PURGED_TOTAL) private readonly rowsPurged: Counter<'table' | 'state'>,
    @InjectMetric(LOOP_TICKS_TOTAL) private readonly loopTicks: Counter<'loop'>,
    @InjectMetric(LOOP_CONCURRENCY) private readonly loopConcurrency: Gauge<'component'>,
    @InjectMetric(LOOP_BATCH_SIZE) private readonly loopBatchSize: Gauge<'component'>,
    @InjectMetric(OUTBOX_UNKNOWN_DESTINATION_MESSAGES) private readonly outboxUnknown: Gauge,
    @InjectMetric(INBOX_UNKNOWN_SOURCE_MESSAGES) private readonly inboxUnknown: Gauge,
  ) {}

  /** The pace of the outbox poller or the inbox relay now: its concurrency and its claims' batch. */
  loopPace(component: ClaimComponent, concurrency: number, batchSize: number): void {
    this.loopConcurrency.set({ component }, concurrency);
    this.loopBatchSize.set({ component }, batchSize);
  }

  /** The tick counter of one loop, bound once: a tick then costs one increment, no label lookup. */
  loopTicker(loop: string): () => void {
    const ticks = this.loopTicks.labels({ loop });
    return () => ticks.inc();
  }

  /** How a claimed row ended, on its component's metrics; a loss also on `queuebox_claims_lost_total`. */
  rowEnded(component: ClaimComponent, stream: string, outcome: RowOutcome, seconds?: number): void {
    if (outcome === 'lost') this.claimLost(component);
    this.claimers[component].ended(stream, outcome, seconds);
  }

  /** Rows claimed out of their key's order, on the component's counter. */
  orderInversions(component: ClaimComponent, stream: string, count: number): void {
    this.claimers[component].inverted(stream, count);
  }

  purged(table: string, state: string, count: number): void {
    if (count > 0) this.rowsPurged.inc({ table, state }, count);
  }

  pullHandled(source: string, outcome: PullOutcome, seconds?: number): void {
    this.pullHandledTotal.inc({ source, outcome });
    if (outcome === 'dead') this.signals.deadLettered();
    if (seconds !== undefined) this.pullDuration.observe({ source }, seconds);
  }

  pullOrderInversions(source: string, count: number): void {
    if (count > 0) this.pullInversions.inc({ source }, count);
  }

  relayOrderInversions(source: string, count: number): void {
    if (count > 0) this.relayInversions.inc({ source }, count);
  }

  inboxReceived(source: string, outcome: ReceiveOutcome): void {
    this.inboxReceivedTotal.inc({ source, outcome });
  }

  inboxRelayed(source: string): void {
    this.inboxRelayedTotal.inc({ source });
  }

  inboxRelayFailed(source: string, outcome: RelayFailureOutcome): void {
    this.inboxRelayFailures.inc({ source, outcome });
    if (outcome === 'dead') this.signals.deadLettered();
  }

  inboxBacklogSample(source: string, pending: number, oldestAgeSeconds: number): void {
    this.inboxBacklog.set({ source }, pending);
    this.inboxOldestAge.set({ source }, oldestAgeSeconds);
    this.signals.sampledAge('inbox', source, oldestAgeSeconds);
  }

  claimLost(component: ClaimComponent): void {
    this.claimsLost.inc({ component });
  }

  outboxMessagesReclaimed(count: number): void {
    if (count > 0) this.outboxReclaimed.inc(count);
  }

  outboxOrderInversions(count: number): void {
    if (count > 0) this.outboxInversions.inc(count);
  }

  outboxPublishAttempt(destination: string, outcome: PublishOutcome, seconds?: number): void {
    const labels = this.publishLabels(destination);
    this.outboxPublished.inc((labels.byOutcome[outcome] ??= { destination, outcome }));
    if (outcome === 'dead') this.signals.deadLettered();
    if (seconds !== undefined) labels.duration.observe(seconds);
  }

  /** A destination's label sets and histogram child, made once (destinations are bounded). */
  private publishLabels(destination: string): PublishLabels {
    let labels = this.publishLabelSets.get(destination);
    if (!labels) {
      labels = { duration: this.publishDuration.labels({ destination }), byOutcome: {} };
      this.publishLabelSets.set(destination, labels);
    }
    return labels;
  }

  outboxBacklogSample(destination: string, pending: number, oldestAgeSeconds: number): void {
    this.outboxBacklog.set({ destination }, pending);
    this.outboxOldestAge.set({ destination }, oldestAgeSeconds);
    this.signals.sampledAge('outbox', destination, oldestAgeSeconds);
  }

  /** Pending rows of `table` whose destination or source this instance does not know (sampled). */
  unknownStreamBacklog(table: QueueBoxTable, pending: number): void {
    ({ outbox: this.outboxUnknown, inbox: this.inboxUnknown })[table].set(pending);
  }

  loopError(loop: string): void {
    this.loopErrors.inc({ loop });
  }
}
