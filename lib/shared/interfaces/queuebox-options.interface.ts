import type { InjectionToken } from '@nestjs/common';
import type { InboxMessage } from './inbox-message.interface.js';
import type { OutboxMessageInput } from './outbox-message.interface.js';
import type { OutboxPublisher } from './outbox-publisher.interface.js';

/**
 * Options of `QueueBoxModule.forRoot()` / `forRootAsync()` (the DataSource name and `isGlobal`
 * are `QueueBoxModuleExtras`). Every field is optional; the claim defaults are those of docs/concepts/claims-and-leases.md.
 * @publicApi
 */
export interface QueueBoxModuleOptions {
  /** Schema of QueueBox's tables (PostgreSQL). Unqualified names (the search path) when omitted. */
  schema?: string;
  /** Table names; validated identifiers. */
  tables?: { outbox?: string; inbox?: string };
  /** What every loop of this replica shares: whether they run, their shutdown wait, their metrics sampling. */
  workers?: WorkersOptions;
  /** What start-up does when QueueBox's tables are not ready (its migrations have not run). */
  startup?: StartupOptions;
  /** Cross-replica wake-ups of both tables through PostgreSQL LISTEN/NOTIFY. */
  notify?: NotifyOptions;
  /** The outbox poller. */
  outbox?: OutboxOptions;
  /** Where messages go, by destination name (the `destination` of an enqueued message). */
  destinations?: Record<string, DestinationOptions>;
  /** The inbox, its HTTP intake and its relay. */
  inbox?: InboxOptions;
  /** Deletion of finished rows. Nothing is ever deleted when omitted. */
  retention?: RetentionOptions;
  /**
   * Run the hot statements as named prepared statements. Unset: yes, unless start-up finds a
   * transaction-mode pooler (then unnamed, logged once). `true` insists (start-up fails where it
   * cannot work). PostgreSQL only.
   */
  preparedStatements?: boolean;
  /**
   * The longest wait for one statement's answer, in ms; then `StatementTimeoutError`, a server-side
   * cancel, and the connection is discarded. Default 30 000 (100 – 86 400 000). PostgreSQL only.
   */
  statementTimeoutMs?: number;
}

/** Options every loop of the replica shares (the outbox poller, the inbox relay, pull workers). @publicApi */
export interface WorkersOptions {
  /** `false` runs no loops: an API-only replica, or a test that drives QueueBox itself. Default true. */
  enabled?: boolean;
  /** How long shutdown waits for a loop's rows in flight before leaving them to reclaim. Default 10000. */
  shutdownTimeoutMs?: number;
  /** How often the backlog and oldest-age gauges are sampled. Default 15000. */
  metricsIntervalMs?: number;
}

/**
 * Start-up checks that QueueBox's tables exist with the columns of its schema version, in one
 * query, once the DataSource is initialized (docs/reference/schema.md, "The start-up check").
 * @publicApi
 */
export interface StartupOptions {
  /**
   * `false` (default): missing or old tables fail start-up with `MissingMigrationsError`. `true`: start-up
   * goes on with a warning, and the loops start once the tables are there.
   */
  waitForMigrations?: boolean;
  /** How often a replica that waits for its migrations looks for the tables again. Default 5000. */
  checkIntervalMs?: number;
}

/**
 * A class that builds QueueBox's options, for `QueueBoxModule.forRootAsync({ useClass })` or
 * `useExisting`: Nest calls `createQueueBoxOptions()` once at start-up.
 * @publicApi
 */
export interface QueueBoxOptionsFactory {
  createQueueBoxOptions(): QueueBoxModuleOptions | Promise<QueueBoxModuleOptions>;
}

/**
 * How long finished rows are kept. Each age is optional: rows of a kind without one are kept
 * forever. Ages count from when the row finished, by the database clock.
 * @publicApi
 */
export interface RetentionOptions {
  /** Delete `sent` outbox rows this long after they were sent. */
  outboxSentMs?: number;
  /** Delete `processed` inbox rows this long after processing (they stop deduplicating). */
  inboxProcessedMs?: number;
  /** Delete `dead` rows of both tables this long after they died (they can no longer be replayed). */
  deadMs?: number;
  /** How often the sweeper runs when no `schedule` is given. Default 60000. */
  intervalMs?: number;
  /**
   * Run the sweeper on a cron schedule (five or six fields) instead of every `intervalMs`; `true` means
   * `'30 3 * * *'`. Registered in `SchedulerRegistry` as `jobName`. Needs `@nestjs/schedule` and
   * `ScheduleModule.forRoot()`.
   */
  schedule?: string | true;
  /** IANA time zone of `schedule` (for example `'Europe/Berlin'`). Default `'UTC'`. */
  timeZone?: string;
  /** Name of the cron job in `SchedulerRegistry`. Default `'queuebox-retention'`. */
  jobName?: string;
}

/** @publicApi */
export interface InboxOptions {
  /** Largest accepted serialized payload, in bytes. Default 262144 (256 KiB). */
  maxPayloadBytes?: number;
  /**
   * The sources this service receives from. When given, any other source is refused; a source
   * with a `secret` must sign its HTTP deliveries. Any source is accepted when omitted.
   */
  sources?: Record<string, InboxSourceOptions>;
  /** How far a signature's timestamp may be from now (replay window), in seconds. Default 300. */
  signatureToleranceSeconds?: number;
  /** How long the HTTP intake waits for a whole body once headers arrived; then 408. Default 10000. */
  bodyTimeoutMs?: number;
  /** Forwarding of inbox rows into the outbox. */
  relay?: InboxRelayOptions;
}

/** @publicApi */
export interface InboxSourceOptions {
  /** The sender's Standard Webhooks secret (`whsec_…`), or several while rotating. Never logged. */
  secret?: string | readonly string[];
  /** Accept this source's HTTP deliveries unsigned (anyone who reaches the intake can post). Logged at start-up. */
  unsigned?: boolean;
}

/** @publicApi */
export interface InboxRelayOptions {
  /** Source name → where its messages are forwarded. Only routed sources are relayed. */
  routes?: Record<string, InboxRouteOptions>;
  /** Lease of a relay claim, renewed every third of it while a forward runs. Default 300000. */
  claimTimeoutMs?: number;
  /** Fallback poll interval when no wake-up arrives. Default 1000. */
  pollIntervalMs?: number;
  /** Rows per claim. Unset with `concurrency` unset: adaptive (5–100). Setting either fixes both. */
  batchSize?: number;
  /** Forwards in flight at once per instance. Unset with `batchSize` unset: adaptive (5–200, from 20). Else default 20. */
  concurrency?: number;
  /** Forward attempts before a row is marked `dead`. Default 10. */
  maxAttempts?: number;
  /** Delay before a retry of a failed forward. */
  backoff?: BackoffOptions;
  /** How long shutdown waits for in-flight forwards. Default `workers.shutdownTimeoutMs`. */
  shutdownTimeoutMs?: number;
}

/** @publicApi */
export interface InboxRouteOptions {
  /** A configured destination. */
  destination: string;
  /** A provider (resolved through Nest DI) that shapes the outbox message. */
  transform?: InjectionToken<InboxTransform>;
}

/**
 * Shapes the outbox message the relay writes for an inbox message. Throwing fails the forward:
 * it is retried with backoff, then dead-lettered.
 * @publicApi
 */
export interface InboxTransform<TPayload = unknown> {
  transform(
    message: InboxMessage<TPayload>,
  ): Partial<Omit<OutboxMessageInput, 'delayMs'>> | Promise<Partial<Omit<OutboxMessageInput, 'delayMs'>>>;
}

/** @publicApi */
export interface OutboxOptions {
  /** Lease of an outbox claim, renewed every third of it while a publish runs. Default 300000. */
  claimTimeoutMs?: number;
  /** How long shutdown waits for in-flight publishes before leaving them to reclaim. Default `workers.shutdownTimeoutMs` (10000). */
  shutdownTimeoutMs?: number;
  /** Fallback poll interval when no wake-up arrives. Default 1000. */
  pollIntervalMs?: number;
  /** Rows per claim. Unset with `concurrency` unset: adaptive (5–500). Setting either fixes both. */
  batchSize?: number;
  /** Publishes in flight per instance. Unset with `batchSize` unset: adaptive (10–1000, from 100). Else 100. */
  concurrency?: number;
  /** Publish attempts before a message is marked `dead`. Default 10. */
  maxAttempts?: number;
  /** Delay before a retry. */
  backoff?: BackoffOptions;
  /** Largest accepted serialized payload, in bytes. Default 262144 (256 KiB). */
  maxPayloadBytes?: number;
  /**
   * Serialize outbox claims with a transaction advisory lock, closing the one ordering window of the
   * lock-free claim (see `queuebox_outbox_order_inversions_total`). Default false.
   */
  claimLock?: boolean;
  /**
   * PostgreSQL: the poller's claims and `sent` marks commit with `synchronous_commit` off. A database
   * crash can undo its last marks: those messages are published again (same id), none is lost.
   * `false`: every mark waits for its flush. Default true.
   */
  asyncMarks?: boolean;
  /** @deprecated Use the top-level `notify` (wake-ups serve both tables). Accepted, with a warning at start-up. */
  notify?: NotifyOptions;
  /** @deprecated Use `workers.metricsIntervalMs` (every loop samples). Accepted, with a warning at start-up. */
  metricsIntervalMs?: number;
}

/** @publicApi */
export interface NotifyOptions {
  /** Listen for and send wake-ups. Default true on PostgreSQL. */
  enabled?: boolean;
  /** At most one NOTIFY per this window: the first at once, the rest as one at its end. Default 2. */
  coalesceMs?: number;
  /**
   * A `postgres://` URL for LISTEN only, on a connection of its own (direct, or a pooler in session
   * mode). Needed for wake-ups when the application connects through a transaction-mode pooler;
   * without it the loops poll. Missing credentials come from the DataSource. Never logged.
   */
  listenUrl?: string;
}

/** @publicApi */
export interface BackoffOptions {
  /** Delay before the first retry. Default 1000. */
  initialDelayMs?: number;
  /** Cap of the delay. Default 300000. */
  maxDelayMs?: number;
  /** Growth per attempt. Default 2. */
  multiplier?: number;
  /** `full`: random in [0, d]; `equal`: random in [d/2, d]; `none`: d. Default `equal`. */
  jitter?: 'full' | 'equal' | 'none';
}

/** @publicApi */
export type DestinationOptions =
  HttpDestinationOptions | RabbitMqDestinationOptions | NatsDestinationOptions | CustomDestinationOptions;

/**
 * POSTs each message to a URL with its id (`webhook-id` when signed, else `X-Message-Id`), the key
 * (`X-QueueBox-Key`) and the trace context as headers.
 * @publicApi
 */
export interface HttpDestinationOptions {
  type: 'http';
  /** An absolute http(s) URL. */
  url: string;
  /** Per-request timeout. Default 10000. */
  timeoutMs?: number;
  /** Extra headers sent with every request (an API key, say); a message cannot replace them. Never logged. */
  headers?: Record<string, string>;
  /**
   * Signs every request by the Standard Webhooks scheme (plus `X-QueueBox-Signature` over the key and
   * trace context). A `whsec_` secret, or several while rotating. Never logged. An empty value
   * (`process.env.X` unset) fails start-up.
   */
  secret?: string | readonly string[];
  /**
   * Send unsigned requests on purpose (the id in `X-Message-Id`); not with a `secret`. A
   * destination with neither `secret` nor `unsigned` sends unsigned requests too.
   */
  unsigned?: boolean;
}

/**
 * Publishes each message to a RabbitMQ exchange on a confirm channel: a publish counts only once
 * the broker has confirmed it. Needs the optional package `amqplib`.
 * @publicApi
 */
export interface RabbitMqDestinationOptions {
  type: 'rabbitmq';
  /** An `amqp://` or `amqps://` URL; it may hold credentials, so it is never logged. */
  url: string;
  /** The exchange to publish to; `''` is the default exchange, which routes by queue name. */
  exchange: string;
  /**
   * Routing key of every message. Default: the destination name (with the default exchange,
   * the queue of that name). The message key travels in the `x-queuebox-key` header.
   */
  routingKey?: string;
  /** Persistent delivery (delivery mode 2), so that durable queues keep the message across a broker restart. Default true. */
  persistent?: boolean;
  /** How long a publish (and a connect) waits for the broker's confirm. Default 10000. */
  confirmTimeoutMs?: number;
}

/**
 * Publishes each message to NATS JetStream with the message id as `Nats-Msg-Id`, so the stream's
 * duplicate window drops a re-publish. Needs the optional packages `@nats-io/transport-node` and
 * `@nats-io/jetstream`.
 * @publicApi
 */
export interface NatsDestinationOptions {
  type: 'nats';
  /** The servers to connect to (`host:port`, `nats://…` or `tls://…`). Never logged. */
  servers: string | string[];
  /** Subject to publish to; a stream must capture it. No wildcards. */
  subject: string;
  /** How long a publish (and a connect) waits for JetStream's acknowledgement. Default 10000. */
  timeoutMs?: number;
}

/** A publisher of your own, resolved through Nest DI: provide the class (or token) in your module. @publicApi */
export interface CustomDestinationOptions {
  type: 'custom';
  publisher: InjectionToken<OutboxPublisher>;
}
