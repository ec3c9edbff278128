import { makeCounterProvider, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';

/*
 * Metric names (`queuebox_<component>_<thing>_<unit|total>`; the two of docs/concepts/claims-and-leases.md
 * among them). Labels stay bounded:
 * component, destination, outcome; never message ids, keys or error text.
 */

/** Counter `{component}`: a renewal or fenced write changed no row. @publicApi */
export const CLAIMS_LOST_TOTAL = 'queuebox_claims_lost_total';
/** Counter: outbox rows whose expired claim the reclaim step returned to pending. @publicApi */
export const OUTBOX_MESSAGES_RECLAIMED_TOTAL = 'queuebox_outbox_messages_reclaimed_total';
/** Counter: outbox claims that took a row older than a claimed or finished row of its key. @publicApi */
export const OUTBOX_ORDER_INVERSIONS_TOTAL = 'queuebox_outbox_order_inversions_total';
/** Counter `{destination, outcome}`: publish attempts (sent, retried, dead, lost). @publicApi */
export const OUTBOX_MESSAGES_PUBLISHED_TOTAL = 'queuebox_outbox_messages_published_total';
/** Histogram `{destination}`: duration of one publish call. @publicApi */
export const OUTBOX_PUBLISH_DURATION_SECONDS = 'queuebox_outbox_publish_duration_seconds';
/** Gauge `{destination}`: pending outbox messages (sampled). @publicApi */
export const OUTBOX_BACKLOG_MESSAGES = 'queuebox_outbox_backlog_messages';
/** Gauge `{destination}`: age of the oldest pending outbox message (sampled). @publicApi */
export const OUTBOX_OLDEST_PENDING_AGE_SECONDS = 'queuebox_outbox_oldest_pending_age_seconds';
/** Gauge: pending outbox messages of destinations this instance does not have configured, left to instances that do (sampled). @publicApi */
export const OUTBOX_UNKNOWN_DESTINATION_MESSAGES = 'queuebox_outbox_unknown_destination_messages';
/** Counter `{table, state}`: finished rows deleted by the retention sweeper. @publicApi */
export const ROWS_PURGED_TOTAL = 'queuebox_rows_purged_total';
/** Counter `{loop}`: ticks of a QueueBox loop that ran to their end; flat while the loop is stalled. @publicApi */
export const LOOP_TICKS_TOTAL = 'queuebox_loop_ticks_total';
/** Gauge `{component}`: rows the outbox poller (`outbox`) or the inbox relay (`relay`) may work on at once now (moves with an adaptive pace). @publicApi */
export const LOOP_CONCURRENCY = 'queuebox_loop_concurrency';
/** Gauge `{component}`: most rows one claim of the outbox poller or the inbox relay asks for now. @publicApi */
export const LOOP_BATCH_SIZE = 'queuebox_loop_batch_size';
/** Counter `{loop}`: failed ticks of a QueueBox loop. @publicApi */
export const LOOP_ERRORS_TOTAL = 'queuebox_loop_errors_total';
/** Counter `{source, outcome}`: receives (accepted, duplicate, rejected; failed: the intake answered 500). @publicApi */
export const INBOX_MESSAGES_RECEIVED_TOTAL = 'queuebox_inbox_messages_received_total';
/** Counter `{source}`: inbox messages the relay forwarded into the outbox. @publicApi */
export const INBOX_MESSAGES_RELAYED_TOTAL = 'queuebox_inbox_messages_relayed_total';
/** Counter `{source, outcome}`: failed forwards (retried, dead, lost). @publicApi */
export const INBOX_RELAY_FAILURES_TOTAL = 'queuebox_inbox_relay_failures_total';
/** Counter `{source}`: relay claims that took a row older than a claimed or finished row of its aggregate. @publicApi */
export const INBOX_RELAY_ORDER_INVERSIONS_TOTAL = 'queuebox_inbox_relay_order_inversions_total';
/** Gauge `{source}`: pending inbox messages of relayed and pulled sources (sampled). @publicApi */
export const INBOX_BACKLOG_MESSAGES = 'queuebox_inbox_backlog_messages';
/** Gauge `{source}`: age of the oldest pending inbox message (sampled). @publicApi */
export const INBOX_OLDEST_PENDING_AGE_SECONDS = 'queuebox_inbox_oldest_pending_age_seconds';
/** Gauge: pending inbox messages of sources this instance neither declares, routes nor pulls, left to instances that do (sampled). @publicApi */
export const INBOX_UNKNOWN_SOURCE_MESSAGES = 'queuebox_inbox_unknown_source_messages';
/** Counter `{source, outcome}`: pulled messages (processed, retried, dead, lost). @publicApi */
export const PULL_MESSAGES_HANDLED_TOTAL = 'queuebox_pull_messages_handled_total';
/** Histogram `{source}`: duration of one pull worker handle() with its completion. @publicApi */
export const PULL_HANDLER_DURATION_SECONDS = 'queuebox_pull_handler_duration_seconds';
/** Counter `{source}`: pull claims that took a row older than a claimed or finished row of its aggregate. @publicApi */
export const PULL_ORDER_INVERSIONS_TOTAL = 'queuebox_pull_order_inversions_total';

/** Histogram `{component, destination, source}`: processing time of a claimed row / its lease (the lease advisor's input). @publicApi */
export const LEASE_UTILIZATION_RATIO = 'queuebox_lease_utilization_ratio';
/** Counter `{component, destination, source}`: lease renewals of rows still being worked on. @publicApi */
export const LEASE_RENEWALS_TOTAL = 'queuebox_lease_renewals_total';
/** Gauge `{component, destination, source}`: the lease the advisor recommends, in seconds; 0 when it advises nothing. @publicApi */
export const LEASE_ADVISED_SECONDS = 'queuebox_lease_advised_seconds';

/** Outcomes of one receive. */
export type ReceiveOutcome = 'accepted' | 'duplicate' | 'rejected' | 'failed';

/** Outcomes of a failed forward. */
export type RelayFailureOutcome = 'retried' | 'dead' | 'lost';

/** Outcomes of one pull handling (worker or direct API). */
export type PullOutcome = 'processed' | 'retried' | 'dead' | 'lost';

/** Outcomes of one publish attempt. */
export type PublishOutcome = 'sent' | 'retried' | 'dead' | 'lost';

/** The metric providers QueueBox registers (on prom-client's default registry, created on first use). */
export const queueBoxMetricProviders = [
  makeCounterProvider({
    name: CLAIMS_LOST_TOTAL,
    help: 'Claims lost: a renewal or fenced write changed no row because the lease ended or another worker took the row.',
    labelNames: ['component'],
  }),
  makeCounterProvider({
    name: OUTBOX_MESSAGES_RECLAIMED_TOTAL,
    help: 'Outbox rows whose expired claim the reclaim step returned to pending.',
  }),
  makeCounterProvider({
    name: OUTBOX_ORDER_INVERSIONS_TOTAL,
    help: 'Outbox claims that took a row older than a row of its key already claimed or finished (out-of-order commits); turn on outbox.claimLock if this moves.',
  }),
  makeCounterProvider({
    name: OUTBOX_MESSAGES_PUBLISHED_TOTAL,
    help: 'Outbox publish attempts by destination and outcome (sent, retried, dead, lost).',
    labelNames: ['destination', 'outcome'],
  }),
  makeHistogramProvider({
    name: OUTBOX_PUBLISH_DURATION_SECONDS,
    help: 'Duration of one publish call, by destination.',
    labelNames: ['destination'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  makeGaugeProvider({
    name: OUTBOX_BACKLOG_MESSAGES,
    help: 'Pending outbox messages by destination (sampled).',
    labelNames: ['destination'],
  }),
  makeGaugeProvider({
    name: OUTBOX_OLDEST_PENDING_AGE_SECONDS,
    help: 'Age of the oldest pending outbox message by destination, by the database clock (sampled).',
    labelNames: ['destination'],
  }),
  makeGaugeProvider({
    name: OUTBOX_UNKNOWN_DESTINATION_MESSAGES,
    help: 'Pending outbox messages of destinations this instance does not have configured (a rolling deploy that adds one, or a destination removed): its claims leave them to instances that have them (sampled).',
  }),
  makeCounterProvider({
    name: INBOX_MESSAGES_RECEIVED_TOTAL,
    help: 'Inbox receives by source and outcome (accepted, duplicate, rejected, failed: stored nothing because the database failed, the intake answered 500); undeclared sources count as _other.',
    labelNames: ['source', 'outcome'],
  }),
  makeCounterProvider({
    name: INBOX_MESSAGES_RELAYED_TOTAL,
    help: 'Inbox messages the relay forwarded into the outbox, by source.',
    labelNames: ['source'],
  }),
  makeCounterProvider({
    name: INBOX_RELAY_FAILURES_TOTAL,
    help: 'Failed forwards of the inbox relay by source and outcome (retried, dead, lost).',
    labelNames: ['source', 'outcome'],
  }),
  makeGaugeProvider({
    name: INBOX_BACKLOG_MESSAGES,
    help: 'Pending inbox messages by source (sampled by the relay for routed sources and by pull workers for theirs).',
    labelNames: ['source'],
  }),
  makeGaugeProvider({
    name: INBOX_OLDEST_PENDING_AGE_SECONDS,
    help: 'Age of the oldest pending inbox message by source, by the database clock (sampled by the relay and pull workers).',
    labelNames: ['source'],
  }),
  makeGaugeProvider({
    name: INBOX_UNKNOWN_SOURCE_MESSAGES,
    help: 'Pending inbox messages of sources this instance neither declares (inbox.sources), routes nor pulls with a worker: its claims leave them to instances that take them (sampled by the relay and pull workers).',
  }),
  makeCounterProvider({
    name: PULL_MESSAGES_HANDLED_TOTAL,
    help: 'Pulled messages by source and outcome (processed, retried, dead, lost); undeclared sources count as _other.',
    labelNames: ['source', 'outcome'],
  }),
  makeHistogramProvider({
    name: PULL_HANDLER_DURATION_SECONDS,
    help: 'Duration of one pull worker handle() call with its completion, by source.',
    labelNames: ['source'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  }),
  makeCounterProvider({
    name: PULL_ORDER_INVERSIONS_TOTAL,
    help: 'Pull claims that took a row older than a row of its aggregate already claimed or finished (out-of-order commits); turn on the claim lock if this moves.',
    labelNames: ['source'],
  }),
  makeCounterProvider({
    name: INBOX_RELAY_ORDER_INVERSIONS_TOTAL,
    help: 'Relay claims that took a row older than a row of its aggregate already claimed or finished, by source: its producers (concurrent receives of one key) committed out of order.',
    labelNames: ['source'],
  }),
  makeCounterProvider({
    name: ROWS_PURGED_TOTAL,
    help: 'Finished rows deleted by the retention sweeper, by table (outbox, inbox) and state.',
    labelNames: ['table', 'state'],
  }),
  makeHistogramProvider({
    name: LEASE_UTILIZATION_RATIO,
    help: 'Processing time of a claimed row divided by its lease, by component and destination (outbox) or source (relay, pull); near 1 the lease is about to expire under the work.',
    labelNames: ['component', 'destination', 'source'],
    buckets: [0.05, 0.1, 0.25, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.5, 2, 5],
  }),
  makeCounterProvider({
    name: LEASE_RENEWALS_TOTAL,
    help: 'Lease renewals of rows still being worked on, by component and destination (outbox) or source (relay, pull).',
    labelNames: ['component', 'destination', 'source'],
  }),
  makeGaugeProvider({
    name: LEASE_ADVISED_SECONDS,
    help: 'The lease the lease advisor recommends (p95 utilization >= 0.8 or claims lost over the last rows), in seconds; 0 when it advises nothing.',
    labelNames: ['component', 'destination', 'source'],
  }),
  makeCounterProvider({
    name: LOOP_TICKS_TOTAL,
    help: 'Ticks of a QueueBox loop that ran to their end (a claim, a sweep); flat while the loop is stalled or waits for a free slot.',
    labelNames: ['loop'],
  }),
  makeGaugeProvider({
    name: LOOP_CONCURRENCY,
    help: 'Rows the outbox poller (outbox) or the inbox relay (relay) may work on at once now; moves with the load under the adaptive pace (neither concurrency nor batchSize set).',
    labelNames: ['component'],
  }),
  makeGaugeProvider({
    name: LOOP_BATCH_SIZE,
    help: 'Most rows one claim of the outbox poller (outbox) or the inbox relay (relay) asks for now; half the concurrency under the adaptive pace.',
    labelNames: ['component'],
  }),
  makeCounterProvider({
    name: LOOP_ERRORS_TOTAL,
    help: 'Failed ticks of a QueueBox loop (the loop backs off and keeps running).',
    labelNames: ['loop'],
  }),
];
