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
   * Run the hot statements (claims, completions, renewals) as named prepared statements, planned
   * once per connection. Unset (the default): yes, unless QueueBox finds at start-up that its
   * connections do not keep prepared statements from one transaction to the next (a pooler in
   * transaction mode, such as PgBouncer before 1.21 or without `max_prepared_statements`); then
   * it runs them unnamed and says so in one log line. `false` skips that check; `true` insists,
   * and start-up fails with `InvalidQueueBoxOptionsError` where it cannot work. PostgreSQL only.
   */
  preparedStatements?: boolean;
  /**
   * The longest wait for the database's answer to one of QueueBox's statements, in ms. Past it,
   * the statement fails with `StatementTimeoutError`, the server is asked to cancel it, and its
   * connection is discarded (destroyed, never returned to the pool): a connection that a network
   * cut left open without FIN or RST would otherwise hold a loop forever, and a backend waiting on
   * a lock would otherwise outlive its client. Default 30 000; 100 – 86 400 000. PostgreSQL only (SQL
   * Server's driver bounds every request with the DataSource's `requestTimeout`).
   */
  statementTimeoutMs?: number;
}

/**
 * Options every loop of the replica shares (the outbox poller, the inbox relay, pull workers).
 * @publicApi
 */
export interface WorkersOptions {
  /** `false` runs no loops: an API-only replica, or a test that drives QueueBox itself. Default true. */
  enabled?: boolean;
  /**
   * How long shutdown waits for a loop's rows in flight before leaving them to reclaim. Default
   * 10000. `outbox.shutdownTimeoutMs`, `inbox.relay.shutdownTimeoutMs` and a pull worker's
   * `shutdownTimeoutMs` override it for their loop.
   */
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
   * `false` (default): tables that are missing or older than this QueueBox fail start-up with
   * `MissingMigrationsError`, which names the migrations to add. `true`, for an application whose
   * migrations run after it starts: start-up goes on with one warning, no loop runs and the health
   * indicator reports down until the tables are there; then the loops start. `enqueue` and
   * `receive` fail with the database's error meanwhile.
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
  /**
   * Delete `processed` inbox rows this long after they were processed. A deleted row no longer
   * deduplicates: keep it longer than any sender may redeliver the same message.
   */
  inboxProcessedMs?: number;
  /** Delete `dead` rows of both tables this long after they died (they can no longer be replayed). */
  deadMs?: number;
  /** How often the sweeper runs when no `schedule` is given. Default 60000. */
  intervalMs?: number;
  /**
   * Runs the sweeper on a cron schedule instead of every `intervalMs`: a cron expression (five
   * fields, or six with seconds first), or `true` for the off-peak default `'30 3 * * *'` (03:30
   * every day in `timeZone`, an hour that exists and occurs once on daylight-saving days). The job
   * is registered in `@nestjs/schedule`'s `SchedulerRegistry` under `jobName`, where the
   * application can inspect, trigger or stop it. Needs the optional package `@nestjs/schedule`
   * and `ScheduleModule.forRoot()` imported by the application.
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
  /**
   * How long the HTTP intake waits for a request's whole body once its headers have arrived, in
   * milliseconds; a body still incomplete then is answered 408 and its connection closed, so that
   * slow or stalled senders cannot hold the server's memory. Default 10000.
   */
  bodyTimeoutMs?: number;
  /** Forwarding of inbox rows into the outbox. */
  relay?: InboxRelayOptions;
}

/** @publicApi */
export interface InboxSourceOptions {
  /**
   * The Standard Webhooks secret shared with the sender (`whsec_` + base64), or several while
   * rotating (a request signed with any of them is accepted). Each source needs a secret of its
   * own. Never logged.
   */
  secret?: string | readonly string[];
  /**
   * Accept this source's HTTP deliveries without a signature: anyone who can reach the intake
   * can then post to it. Where the intake is mounted, every source needs a `secret` or this;
   * unsigned sources are named in a start-up log line.
   */
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
  /**
   * Rows claimed per claim statement. Unset with `concurrency` unset: adaptive (5–100, half the
   * concurrency; docs/reference/options.md, "Adaptive pace"). Setting either fixes both.
   */
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
  /**
   * Rows claimed per claim statement. Unset with `concurrency` unset: adaptive (5–500, half the
   * concurrency; docs/reference/options.md, "Adaptive pace"). Setting either fixes both.
   */
  batchSize?: number;
  /**
   * Publishes in flight at once per instance (rows claimed and not yet marked). Unset with
   * `batchSize` unset: adaptive (10–1000, from 100). Else default 100.
   */
  concurrency?: number;
  /** Publish attempts before a message is marked `dead`. Default 10. */
  maxAttempts?: number;
  /** Delay before a retry. */
  backoff?: BackoffOptions;
  /** Largest accepted serialized payload, in bytes. Default 262144 (256 KiB). */
  maxPayloadBytes?: number;
  /**
   * Serialize outbox claims with a transaction advisory lock taken before the claim statement.
   * Closes the one ordering window the lock-free claim has: producers of one key whose
   * transactions commit in the opposite order of their inserts. Watch
   * `queuebox_outbox_order_inversions_total` to know whether you need it. Default false.
   */
  claimLock?: boolean;
  /**
   * PostgreSQL: the outbox poller's own writes — its `sent` marks and its claims — commit without
   * waiting for their WAL flush (`synchronous_commit` off for that statement's transaction only),
   * several times faster per key and a flush less per message. A database crash can undo those of
   * its last moments: their messages are published again (a duplicate with the same message id,
   * which the outbox allows); none is lost. `false`: every mark and claim waits for its flush.
   * Ignored on SQL Server. Default true.
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
  /**
   * At most one NOTIFY per this window, whatever the number of commits: the first at once, the
   * rest of the window's as one at its end. Default 2 (low latency across processes); raise it to
   * trade latency for fewer, larger claims on a busy database.
   */
  coalesceMs?: number;
  /**
   * A `postgres://` URL for LISTEN only: one connection of its own, outside the application's
   * pool, to the database directly or through a pooler in session mode. Needed to receive
   * wake-ups where the application connects through a pooler in transaction mode (PgBouncer),
   * which does not keep a LISTEN past its transaction; without it, QueueBox finds that out at
   * start-up, says so once, and its loops poll (`outbox.pollIntervalMs`, the relay's and pull
   * workers' intervals). Credentials missing from the URL are taken from the application's
   * DataSource. It may hold credentials: never logged.
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
   * When set, every request is signed by the Standard Webhooks scheme (`webhook-id`,
   * `webhook-timestamp`, `webhook-signature`; plus `X-QueueBox-Signature` over the key and trace
   * context). A `whsec_` secret, or several while rotating: each signs, so a receiver that knows
   * any of them accepts the request. Never logged. When the key is given, it must hold a secret:
   * `secret: process.env.X` with X unset or empty fails start-up (else every request would go
   * out unsigned, and a receiver that checks signatures would refuse them all).
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

/**
 * A publisher of your own, resolved through Nest DI: provide the class (or token) in your module.
 * @publicApi
 */
export interface CustomDestinationOptions {
  type: 'custom';
  publisher: InjectionToken<OutboxPublisher>;
}
