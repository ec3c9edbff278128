import type { InjectionToken } from '@nestjs/common';
import type { OutboxPublisher } from '../../shared/interfaces/outbox-publisher.interface.js';
import type { InboxTransform } from '../../shared/interfaces/queuebox-options.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';

/** Options after validation, every default applied. Internal: built by `resolveOptions`. */
export interface ResolvedQueueBoxOptions {
  tables: ResolvedTableNames;
  workers: ResolvedWorkersOptions;
  startup: ResolvedStartupOptions;
  notify: ResolvedNotifyOptions;
  /** Undefined: named prepared statements unless the start-up probe finds that connections do not keep them. */
  preparedStatements?: boolean;
  statementTimeoutMs: number;
  outbox: ResolvedOutboxOptions;
  destinations: ReadonlyMap<string, ResolvedDestination>;
  inbox: ResolvedInboxOptions;
  retention: ResolvedRetention;
  /** Deprecated option names the application used, each with its replacement: logged once at start-up. */
  deprecations: readonly string[];
}

export interface ResolvedWorkersOptions {
  enabled: boolean;
  shutdownTimeoutMs: number;
  metricsIntervalMs: number;
}

export interface ResolvedStartupOptions {
  waitForMigrations: boolean;
  checkIntervalMs: number;
}

export interface ResolvedNotifyOptions {
  enabled: boolean;
  coalesceMs: number;
  /** Where LISTEN connects, instead of a connection of the application's pool. */
  listenUrl?: string;
}

export interface ResolvedRetention {
  outboxSentMs?: number;
  inboxProcessedMs?: number;
  deadMs?: number;
  intervalMs: number;
  /** Set when the sweeper runs on a cron schedule (`@nestjs/schedule`) instead of its interval loop. */
  schedule?: ResolvedRetentionSchedule;
}

export interface ResolvedRetentionSchedule {
  cron: string;
  timeZone: string;
  jobName: string;
}

export interface ResolvedInboxOptions {
  maxPayloadBytes: number;
  /** Declared sources (a closed set) with the keys of their Standard Webhooks secrets (none: unsigned); undefined when any source is accepted. */
  sources?: ReadonlyMap<string, { secrets?: Buffer[] }>;
  signatureToleranceSeconds: number;
  /** How long the HTTP intake waits for a request's whole body once its headers are in. */
  bodyTimeoutMs: number;
  relay: ResolvedRelayOptions;
}

/**
 * How a claim loop runs, resolved: one shape for the outbox poller, the inbox relay and every pull
 * worker, whatever each calls its options and whatever defaults and bounds each applies.
 */
export interface ResolvedLoopOptions {
  /**
   * The lease of every claim, renewed every third of it while the row's work runs:
   * `claimTimeoutMs` of the outbox and the relay, a pull worker's `leaseMs`.
   */
  leaseMs: number;
  pollIntervalMs: number;
  /** The fixed batch, or the adaptive pace's start value. */
  batchSize: number;
  /** The fixed concurrency, or the adaptive pace's start value. */
  concurrency: number;
  /** Neither `batchSize` nor `concurrency` was set: both move with the load (an adaptive pace). */
  adaptive: boolean;
  /**
   * Rows a worker may hold claimed beyond `concurrency`, waiting for a slot: the next batch is
   * claimed while the current one runs, so a claim's own duration never leaves slots empty (a pull
   * worker's `claimAhead`). 0: a worker claims only into free slots.
   */
  claimAhead: number;
  /** Claims of a row after which it is dead-lettered; a claim beyond it dead-letters without work. */
  maxAttempts: number;
  backoff: ResolvedBackoff;
  shutdownTimeoutMs: number;
}

export interface ResolvedRelayOptions extends ResolvedLoopOptions {
  routes: ReadonlyMap<string, { destination: string; transform?: InjectionToken<InboxTransform> }>;
}

export interface ResolvedBackoff {
  initialDelayMs: number;
  maxDelayMs: number;
  multiplier: number;
  jitter: 'full' | 'equal' | 'none';
}

export interface ResolvedOutboxOptions extends ResolvedLoopOptions {
  maxPayloadBytes: number;
  claimLock: boolean;
  asyncMarks: boolean;
}

export type ResolvedDestination =
  | { type: 'http'; name: string; url: URL; timeoutMs: number; headers: Record<string, string>; secrets?: Buffer[] }
  | {
      type: 'rabbitmq';
      name: string;
      url: string;
      exchange: string;
      routingKey: string;
      persistent: boolean;
      confirmTimeoutMs: number;
    }
  | { type: 'nats'; name: string; servers: string[]; subject: string; timeoutMs: number }
  | { type: 'custom'; name: string; publisher: InjectionToken<OutboxPublisher> };
