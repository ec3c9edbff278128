import type { InjectionToken } from '@nestjs/common';
import type { OutboxPublisher } from '../../shared/interfaces/outbox-publisher.interface.js';
import { DEFAULT_INBOX_TABLE, DEFAULT_OUTBOX_TABLE } from '../../shared/queuebox.constants.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import type { QueueBoxModuleOptions } from '../../shared/interfaces/queuebox-options.interface.js';
import { strictestLimits } from '../../database/dialects/dialect-registry.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../../database/dialects/statement-deadline.js';
import { DAY_MS, MAX_INTERVAL_MS } from '../queuebox.limits.js';
import {
  batchAboveConcurrency,
  describeValue,
  intakeNeedsSources,
  invalidHeaderOption,
  invalidHiddenOption,
  invalidOption,
  destinationSecretUnset,
  sharedSourceSecret,
  sourceNeedsSecret,
  secretAndUnsigned,
  sourceSecretUnsetButUnsigned,
  bothOptionNames,
  deprecatedOption,
  deprecatedShutdownFallback,
} from '../../shared/queuebox.messages.js';
import { keyProblem } from '../validation/keys.js';
import { headerNameProblem, headerValueProblem } from '../validation/http-headers.js';
import {
  keysOf,
  readBoolean,
  readEnum,
  readIdentifier,
  readInt,
  readNumber,
  readObject,
  readServiceUrl,
  readWebhookSecrets,
} from './option-readers.js';
import { resolveNatsDestination, resolveRabbitMqDestination } from './broker-destinations.js';
import { resolveRetentionSchedule } from './retention-schedule.js';
import { OUTBOX_PACE_BOUNDS, type PaceBounds, RELAY_PACE_BOUNDS } from './pace-bounds.js';
import type {
  BackoffOptions,
  CustomDestinationOptions,
  DestinationOptions,
  HttpDestinationOptions,
  InboxOptions,
  InboxRelayOptions,
  InboxRouteOptions,
  InboxSourceOptions,
  InboxTransform,
  NatsDestinationOptions,
  NotifyOptions,
  OutboxOptions,
  RabbitMqDestinationOptions,
  RetentionOptions,
  StartupOptions,
  WorkersOptions,
} from '../../shared/interfaces/queuebox-options.interface.js';
import type {
  ResolvedBackoff,
  ResolvedInboxOptions,
  ResolvedDestination,
  ResolvedNotifyOptions,
  ResolvedOutboxOptions,
  ResolvedQueueBoxOptions,
  ResolvedRetention,
  ResolvedStartupOptions,
  ResolvedWorkersOptions,
} from './resolved-options.interface.js';

/**
 * The cross-replica wake-up window. At a steady rate nearly every wake-up is the trailing one, so a
 * message waits half a window: 2 ms gives a p50 under 2 ms (docs/benchmark.md), at most 500 NOTIFYs/s.
 */
const DEFAULT_NOTIFY_COALESCE_MS = 2;

/** What the module knows besides the options: whether the HTTP intake is mounted (the `intake` extra). */
export interface ResolveContext {
  intake?: boolean;
}

const OPTION_KEYS = keysOf<QueueBoxModuleOptions>({
  schema: true,
  tables: true,
  workers: true,
  startup: true,
  notify: true,
  outbox: true,
  destinations: true,
  inbox: true,
  retention: true,
  preparedStatements: true,
  statementTimeoutMs: true,
});
const TABLE_KEYS = keysOf<NonNullable<QueueBoxModuleOptions['tables']>>({ outbox: true, inbox: true });
const WORKERS_KEYS = keysOf<WorkersOptions>({ enabled: true, shutdownTimeoutMs: true, metricsIntervalMs: true });
const STARTUP_KEYS = keysOf<StartupOptions>({ waitForMigrations: true, checkIntervalMs: true });
const NOTIFY_KEYS = keysOf<NotifyOptions>({ enabled: true, coalesceMs: true, listenUrl: true });
// `notify` and `metricsIntervalMs` are the deprecated names of `notify` and `workers.metricsIntervalMs` (see `movedOption`).
const OUTBOX_KEYS = keysOf<OutboxOptions>({
  claimTimeoutMs: true,
  shutdownTimeoutMs: true,
  pollIntervalMs: true,
  batchSize: true,
  concurrency: true,
  maxAttempts: true,
  backoff: true,
  maxPayloadBytes: true,
  claimLock: true,
  asyncMarks: true,
  notify: true,
  metricsIntervalMs: true,
});
const INBOX_KEYS = keysOf<InboxOptions>({
  maxPayloadBytes: true,
  sources: true,
  signatureToleranceSeconds: true,
  bodyTimeoutMs: true,
  relay: true,
});
const SOURCE_KEYS = keysOf<InboxSourceOptions>({ secret: true, unsigned: true });
const RELAY_KEYS = keysOf<InboxRelayOptions>({
  routes: true,
  claimTimeoutMs: true,
  pollIntervalMs: true,
  batchSize: true,
  concurrency: true,
  maxAttempts: true,
  backoff: true,
  shutdownTimeoutMs: true,
});
const ROUTE_KEYS = keysOf<InboxRouteOptions>({ destination: true, transform: true });
const BACKOFF_KEYS = keysOf<BackoffOptions>({ initialDelayMs: true, maxDelayMs: true, multiplier: true, jitter: true });
const RETENTION_KEYS = keysOf<RetentionOptions>({
  outboxSentMs: true,
  inboxProcessedMs: true,
  deadMs: true,
  intervalMs: true,
  schedule: true,
  timeZone: true,
  jobName: true,
});

const DEFAULT_BATCH_SIZE = 50;

/** Applies defaults and validates, for `forRoot` and `forRootAsync`. Throws `InvalidQueueBoxOptionsError`. */
export function resolveOptions(
  raw: QueueBoxModuleOptions | undefined,
  context: ResolveContext = {},
): ResolvedQueueBoxOptions {
  const options = readObject(raw, '(options)', OPTION_KEYS);
  const tables = readObject(options.tables, 'tables', TABLE_KEYS);
  const rawOutbox = readObject(options.outbox, 'outbox', OUTBOX_KEYS);
  const deprecations: string[] = [];
  const workers = resolveWorkers(readObject(options.workers, 'workers', WORKERS_KEYS), rawOutbox, deprecations);
  const outbox = resolveOutbox(rawOutbox, workers);
  const destinations = resolveDestinations(readObject(options.destinations, 'destinations'));
  const resolved: ResolvedQueueBoxOptions = {
    tables: {
      schema: readIdentifier(options.schema, 'schema', undefined, strictestLimits.identifierLength),
      outbox: readIdentifier(tables.outbox, 'tables.outbox', DEFAULT_OUTBOX_TABLE, strictestLimits.tableNameLength)!,
      inbox: readIdentifier(tables.inbox, 'tables.inbox', DEFAULT_INBOX_TABLE, strictestLimits.tableNameLength)!,
    },
    workers,
    startup: resolveStartup(readObject(options.startup, 'startup', STARTUP_KEYS)),
    notify: resolveNotify(options.notify, rawOutbox.notify, deprecations),
    preparedStatements:
      options.preparedStatements === undefined
        ? undefined
        : readBoolean(options.preparedStatements, 'preparedStatements', true),
    statementTimeoutMs: readInt(
      options.statementTimeoutMs,
      'statementTimeoutMs',
      DEFAULT_STATEMENT_TIMEOUT_MS,
      100,
      DAY_MS,
    ),
    outbox,
    destinations,
    inbox: resolveInbox(readObject(options.inbox, 'inbox', INBOX_KEYS), workers, destinations, context),
    retention: resolveRetention(readObject(options.retention, 'retention', RETENTION_KEYS)),
    deprecations,
  };
  if (resolved.tables.outbox === resolved.tables.inbox) {
    throw new InvalidQueueBoxOptionsError(
      'tables.inbox',
      invalidOption('tables.inbox', resolved.tables.inbox, 'different from tables.outbox'),
    );
  }
  return resolved;
}

/** An option that moved: new name, or deprecated one (noted in `deprecations`). Both at once is refused. */
function movedOption(
  value: unknown,
  path: string,
  deprecatedValue: unknown,
  deprecatedPath: string,
  deprecations: string[],
): unknown {
  if (deprecatedValue === undefined) return value;
  if (value !== undefined) throw new InvalidQueueBoxOptionsError(deprecatedPath, bothOptionNames(deprecatedPath, path));
  deprecations.push(deprecatedOption(deprecatedPath, path));
  return deprecatedValue;
}

function resolveWorkers(
  workers: Record<string, unknown>,
  outbox: Record<string, unknown>,
  deprecations: string[],
): ResolvedWorkersOptions {
  // Before `workers.shutdownTimeoutMs`, the outbox's wait was every loop's default: kept, with a warning.
  const outboxShutdown = workers.shutdownTimeoutMs === undefined ? outbox.shutdownTimeoutMs : undefined;
  if (outboxShutdown !== undefined) deprecations.push(deprecatedShutdownFallback());
  return {
    enabled: readBoolean(workers.enabled, 'workers.enabled', true),
    shutdownTimeoutMs:
      outboxShutdown === undefined
        ? readInt(workers.shutdownTimeoutMs, 'workers.shutdownTimeoutMs', 10_000, 0, DAY_MS)
        : readInt(outboxShutdown, 'outbox.shutdownTimeoutMs', 10_000, 0, DAY_MS),
    metricsIntervalMs: readInt(
      movedOption(
        workers.metricsIntervalMs,
        'workers.metricsIntervalMs',
        outbox.metricsIntervalMs,
        'outbox.metricsIntervalMs',
        deprecations,
      ),
      outbox.metricsIntervalMs === undefined ? 'workers.metricsIntervalMs' : 'outbox.metricsIntervalMs',
      15_000,
      100,
      DAY_MS,
    ),
  };
}

function resolveStartup(startup: Record<string, unknown>): ResolvedStartupOptions {
  return {
    waitForMigrations: readBoolean(startup.waitForMigrations, 'startup.waitForMigrations', false),
    checkIntervalMs: readInt(startup.checkIntervalMs, 'startup.checkIntervalMs', 5_000, 100, DAY_MS),
  };
}

function resolveNotify(value: unknown, deprecatedValue: unknown, deprecations: string[]): ResolvedNotifyOptions {
  const path = deprecatedValue === undefined ? 'notify' : 'outbox.notify';
  const notify = readObject(
    movedOption(value, 'notify', deprecatedValue, 'outbox.notify', deprecations),
    path,
    NOTIFY_KEYS,
  );
  return {
    enabled: readBoolean(notify.enabled, `${path}.enabled`, true),
    coalesceMs: readInt(notify.coalesceMs, `${path}.coalesceMs`, DEFAULT_NOTIFY_COALESCE_MS, 0, 60_000),
    listenUrl:
      notify.listenUrl === undefined
        ? undefined
        : readServiceUrl(notify.listenUrl, `${path}.listenUrl`, ['postgres:', 'postgresql:'], 'a postgres:// URL'),
  };
}

function resolveOutbox(outbox: Record<string, unknown>, workers: ResolvedWorkersOptions): ResolvedOutboxOptions {
  return {
    leaseMs: readInt(outbox.claimTimeoutMs, 'outbox.claimTimeoutMs', 300_000, 1_000, MAX_INTERVAL_MS),
    shutdownTimeoutMs: readInt(
      outbox.shutdownTimeoutMs,
      'outbox.shutdownTimeoutMs',
      workers.shutdownTimeoutMs,
      0,
      DAY_MS,
    ),
    pollIntervalMs: readInt(outbox.pollIntervalMs, 'outbox.pollIntervalMs', 1_000, 10, DAY_MS),
    ...readBatching(outbox, 'outbox', OUTBOX_PACE_BOUNDS),
    claimAhead: 0,
    maxAttempts: readInt(outbox.maxAttempts, 'outbox.maxAttempts', 10, 1, 1_000_000),
    backoff: resolveBackoff(readObject(outbox.backoff, 'outbox.backoff', BACKOFF_KEYS), 'outbox.backoff'),
    maxPayloadBytes: readInt(outbox.maxPayloadBytes, 'outbox.maxPayloadBytes', 262_144, 1, 1_073_741_824),
    claimLock: readBoolean(outbox.claimLock, 'outbox.claimLock', false),
    asyncMarks: readBoolean(outbox.asyncMarks, 'outbox.asyncMarks', true),
  };
}

function resolveInbox(
  inbox: Record<string, unknown>,
  workers: ResolvedWorkersOptions,
  destinations: ReadonlyMap<string, ResolvedDestination>,
  context: ResolveContext,
): ResolvedInboxOptions {
  const relay = readObject(inbox.relay, 'inbox.relay', RELAY_KEYS);
  if (context.intake && inbox.sources === undefined)
    throw new InvalidQueueBoxOptionsError('inbox.sources', intakeNeedsSources());
  const sources =
    inbox.sources === undefined ? undefined : resolveSources(readObject(inbox.sources, 'inbox.sources'), context);
  const routes = new Map<string, { destination: string; transform?: InjectionToken<InboxTransform> }>();
  for (const [source, value] of Object.entries(readObject(relay.routes, 'inbox.relay.routes'))) {
    const path = `inbox.relay.routes.${source}`;
    const route = readObject(value, path, ROUTE_KEYS);
    if (sources && !sources.has(source)) {
      throw new InvalidQueueBoxOptionsError(
        path,
        invalidOption(path, source, `a source declared in inbox.sources (${[...sources.keys()].join(', ') || 'none'})`),
      );
    }
    if (typeof route.destination !== 'string' || !destinations.has(route.destination)) {
      throw new InvalidQueueBoxOptionsError(
        `${path}.destination`,
        invalidOption(
          `${path}.destination`,
          route.destination,
          `a configured destination (${[...destinations.keys()].join(', ') || 'none configured'})`,
        ),
      );
    }
    const transform = route.transform;
    if (
      transform !== undefined &&
      typeof transform !== 'function' &&
      typeof transform !== 'string' &&
      typeof transform !== 'symbol'
    ) {
      throw new InvalidQueueBoxOptionsError(
        `${path}.transform`,
        invalidOption(`${path}.transform`, transform, 'a provider class or injection token'),
      );
    }
    routes.set(source, {
      destination: route.destination,
      transform: transform as InjectionToken<InboxTransform> | undefined,
    });
  }
  return {
    maxPayloadBytes: readInt(inbox.maxPayloadBytes, 'inbox.maxPayloadBytes', 262_144, 1, 1_073_741_824),
    sources,
    signatureToleranceSeconds: readInt(
      inbox.signatureToleranceSeconds,
      'inbox.signatureToleranceSeconds',
      300,
      1,
      86_400,
    ),
    bodyTimeoutMs: readInt(inbox.bodyTimeoutMs, 'inbox.bodyTimeoutMs', 10_000, 100, 300_000),
    relay: {
      routes,
      leaseMs: readInt(relay.claimTimeoutMs, 'inbox.relay.claimTimeoutMs', 300_000, 1_000, MAX_INTERVAL_MS),
      pollIntervalMs: readInt(relay.pollIntervalMs, 'inbox.relay.pollIntervalMs', 1_000, 10, DAY_MS),
      ...readBatching(relay, 'inbox.relay', RELAY_PACE_BOUNDS),
      claimAhead: 0,
      maxAttempts: readInt(relay.maxAttempts, 'inbox.relay.maxAttempts', 10, 1, 1_000_000),
      backoff: resolveBackoff(readObject(relay.backoff, 'inbox.relay.backoff', BACKOFF_KEYS), 'inbox.relay.backoff'),
      shutdownTimeoutMs: readInt(
        relay.shutdownTimeoutMs,
        'inbox.relay.shutdownTimeoutMs',
        workers.shutdownTimeoutMs,
        0,
        DAY_MS,
      ),
    },
  };
}

/**
 * `batchSize` and `concurrency` of a claiming loop: neither set, the adaptive pace; either set, both
 * fixed. A batch above `concurrency` could never fill: the default is capped, an explicit one refused.
 */
function readBatching(
  loop: Record<string, unknown>,
  path: string,
  pace: PaceBounds,
): { batchSize: number; concurrency: number; adaptive: boolean } {
  if (loop.concurrency === undefined && loop.batchSize === undefined) {
    const concurrency = pace.concurrency.start;
    return { concurrency, batchSize: Math.max(pace.batchSize.min, Math.floor(concurrency / 2)), adaptive: true };
  }
  const concurrency = readInt(loop.concurrency, `${path}.concurrency`, pace.concurrency.start, 1, 10_000);
  const batchSize = readInt(loop.batchSize, `${path}.batchSize`, Math.min(DEFAULT_BATCH_SIZE, concurrency), 1, 1_000);
  if (batchSize > concurrency) {
    throw new InvalidQueueBoxOptionsError(`${path}.batchSize`, batchAboveConcurrency(path, batchSize, concurrency));
  }
  return { batchSize, concurrency, adaptive: false };
}

/** The declared sources. Where the intake is mounted, each needs a secret or `unsigned: true`. */
function resolveSources(
  sources: Record<string, unknown>,
  context: ResolveContext,
): ReadonlyMap<string, { secrets?: Buffer[] }> {
  const resolved = new Map<string, { secrets?: Buffer[] }>();
  const owners = new Map<string, string>();
  for (const [name, value] of Object.entries(sources)) {
    const path = `inbox.sources.${name}`;
    const problem = keyProblem(name);
    if (problem)
      throw new InvalidQueueBoxOptionsError(
        path,
        invalidOption('inbox.sources', name, `keyed by source names that are valid keys (a name ${problem})`),
      );
    const source = readObject(value, path, SOURCE_KEYS);
    const secrets = readWebhookSecrets(source.secret, `${path}.secret`);
    const unsigned = readBoolean(source.unsigned, `${path}.unsigned`, false);
    if (secrets && unsigned) throw new InvalidQueueBoxOptionsError(path, secretAndUnsigned(path));
    // `secret: process.env.X` with X unset reads as undefined: next to `unsigned: true` it would
    // open the source to anyone, where the same line with X set is refused above.
    if (unsigned && Object.hasOwn(source, 'secret'))
      throw new InvalidQueueBoxOptionsError(`${path}.secret`, sourceSecretUnsetButUnsigned(path));
    if (context.intake && !secrets && !unsigned)
      throw new InvalidQueueBoxOptionsError(`${path}.secret`, sourceNeedsSecret(path));
    // A secret identifies its source: shared by two, each would accept the other's requests.
    for (const key of secrets ?? []) {
      const owner = owners.get(key.toString('base64'));
      if (owner !== undefined) throw new InvalidQueueBoxOptionsError(`${path}.secret`, sharedSourceSecret(owner, name));
      owners.set(key.toString('base64'), name);
    }
    resolved.set(name, { secrets });
  }
  return resolved;
}

function resolveRetention(retention: Record<string, unknown>): ResolvedRetention {
  // An age of at least a second: a shorter one would delete rows a worker may still be reading.
  const age = (name: string): number | undefined =>
    retention[name] === undefined
      ? undefined
      : readInt(retention[name], `retention.${name}`, 0, 1_000, strictestLimits.ageMs);
  const ages = { outboxSentMs: age('outboxSentMs'), inboxProcessedMs: age('inboxProcessedMs'), deadMs: age('deadMs') };
  return {
    ...ages,
    intervalMs: readInt(retention.intervalMs, 'retention.intervalMs', 60_000, 100, DAY_MS),
    schedule: resolveRetentionSchedule(
      retention,
      Object.values(ages).some((ms) => ms !== undefined),
    ),
  };
}

/** Shared by every component that retries (outbox, relay, pull). */
export function resolveBackoff(backoff: Record<string, unknown>, path: string): ResolvedBackoff {
  const initialDelayMs = readInt(backoff.initialDelayMs, `${path}.initialDelayMs`, 1_000, 0, MAX_INTERVAL_MS);
  const maxDelayMs = readInt(backoff.maxDelayMs, `${path}.maxDelayMs`, 300_000, 0, MAX_INTERVAL_MS);
  if (maxDelayMs < initialDelayMs) {
    throw new InvalidQueueBoxOptionsError(
      `${path}.maxDelayMs`,
      invalidOption(`${path}.maxDelayMs`, maxDelayMs, `at least ${path}.initialDelayMs (${initialDelayMs})`),
    );
  }
  return {
    initialDelayMs,
    maxDelayMs,
    multiplier: readNumber(backoff.multiplier, `${path}.multiplier`, 2, 1, 100),
    jitter: readEnum(backoff.jitter, `${path}.jitter`, 'equal', ['full', 'equal', 'none'] as const),
  };
}

const DESTINATION_KEYS: Record<DestinationOptions['type'], readonly string[]> = {
  http: keysOf<HttpDestinationOptions>({
    type: true,
    url: true,
    timeoutMs: true,
    headers: true,
    secret: true,
    unsigned: true,
  }),
  rabbitmq: keysOf<RabbitMqDestinationOptions>({
    type: true,
    url: true,
    exchange: true,
    routingKey: true,
    persistent: true,
    confirmTimeoutMs: true,
  }),
  nats: keysOf<NatsDestinationOptions>({ type: true, servers: true, subject: true, timeoutMs: true }),
  custom: keysOf<CustomDestinationOptions>({ type: true, publisher: true }),
};

function resolveDestinations(destinations: Record<string, unknown>): ReadonlyMap<string, ResolvedDestination> {
  const resolved = new Map<string, ResolvedDestination>();
  for (const [name, value] of Object.entries(destinations)) {
    const path = `destinations.${name}`;
    const problem = keyProblem(name);
    if (problem)
      throw new InvalidQueueBoxOptionsError(
        path,
        invalidOption('destinations', name, `keyed by destination names that are valid keys (a name ${problem})`),
      );
    const type = readEnum(
      readObject(value, path).type,
      `${path}.type`,
      undefined as never,
      ['http', 'rabbitmq', 'nats', 'custom'] as const,
    );
    const destination = readObject(value, path, DESTINATION_KEYS[type]);
    if (type === 'http') {
      resolved.set(name, {
        type,
        name,
        url: readUrl(destination.url, `${path}.url`),
        timeoutMs: readInt(destination.timeoutMs, `${path}.timeoutMs`, 10_000, 1, DAY_MS),
        headers: readHeaders(destination.headers, `${path}.headers`),
        secrets: readDestinationSecrets(destination, path),
      });
    } else if (type === 'rabbitmq') {
      resolved.set(name, resolveRabbitMqDestination(name, destination, path));
    } else if (type === 'nats') {
      resolved.set(name, resolveNatsDestination(name, destination, path));
    } else if (type === 'custom') {
      const publisher = destination.publisher;
      if (typeof publisher !== 'function' && typeof publisher !== 'string' && typeof publisher !== 'symbol') {
        throw new InvalidQueueBoxOptionsError(
          `${path}.publisher`,
          invalidOption(`${path}.publisher`, publisher, 'a provider class or injection token'),
        );
      }
      resolved.set(name, { type, name, publisher: publisher as InjectionToken<OutboxPublisher> });
    } else {
      throw new InvalidQueueBoxOptionsError(
        `${path}.type`,
        invalidOption(`${path}.type`, destination.type, "'http', 'rabbitmq', 'nats' or 'custom'"),
      );
    }
  }
  return resolved;
}

/**
 * The signing keys of an http destination. A `secret` key present but unset fails (else requests go
 * out unsigned and a checking receiver refuses them all); `unsigned: true` says unsigned is meant.
 */
function readDestinationSecrets(destination: Record<string, unknown>, path: string): Buffer[] | undefined {
  const unsigned = readBoolean(destination.unsigned, `${path}.unsigned`, false);
  const unset = destination.secret === undefined || destination.secret === '';
  if (unsigned) {
    if (!unset) throw new InvalidQueueBoxOptionsError(path, secretAndUnsigned(path));
    return undefined;
  }
  if (unset && (Object.hasOwn(destination, 'secret') || destination.unsigned === false)) {
    throw new InvalidQueueBoxOptionsError(`${path}.secret`, destinationSecretUnset(path));
  }
  return readWebhookSecrets(destination.secret, `${path}.secret`);
}

/** An absolute http(s) URL without credentials (a password would reach logs and `last_error`). Never echoed. */
function readUrl(value: unknown, path: string): URL {
  const allowed = 'an absolute http:// or https:// URL without user or password (send credentials with "headers")';
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const description =
      typeof value !== 'string'
        ? describeValue(value)
        : url
          ? `a URL with the scheme "${url.protocol}"`
          : 'a string that is not an absolute URL';
    throw new InvalidQueueBoxOptionsError(path, invalidHiddenOption(path, description, allowed));
  }
  if (url.username !== '' || url.password !== '')
    throw new InvalidQueueBoxOptionsError(path, invalidHiddenOption(path, 'a URL with credentials', allowed));
  return url;
}

/** Extra request headers of a destination, checked like message headers. Values are never echoed (API keys). */
function readHeaders(value: unknown, path: string): Record<string, string> {
  const headers = readObject(value, path);
  for (const [name, header] of Object.entries(headers)) {
    const problem = headerNameProblem(name) ?? headerValueProblem(header);
    if (problem)
      throw new InvalidQueueBoxOptionsError(`${path}.${name}`, invalidHeaderOption(`${path}.${name}`, problem));
  }
  return headers as Record<string, string>;
}
