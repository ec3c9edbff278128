import type { ClaimRepository } from '../../engine/claim.repository.js';
import type { StatementRunner } from '../../database/statement-runner.js';
import type { ClaimRequest } from '../../database/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimResult } from '../../database/statement-results.js';
import type { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { toInboxMessage } from '../inbox/inbox-message.mapper.js';
import type { PullContext } from '../../shared/interfaces/pull.interface.js';
import type { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import type { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ReportedRow } from '../../engine/claim-outcomes.js';
import type { ClaimRole, RowJob } from '../../engine/claim-role.interface.js';
import { ClaimWorker, type ClaimWorkerStatus } from '../../engine/claim-worker.js';
import { claimWorkerSettings } from '../../engine/loop-settings.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import type { MessageSpan } from '../../shared/tracing/message-span.interface.js';
import { messagingTracer } from '../../shared/tracing/messaging-tracer.js';
import type { PullWorkerHost } from './pull-worker.host.js';
import type { ResolvedPullWorker } from './resolve-pull-worker-options.js';

/** What a poller needs besides its `@PullWorker` instance and options. */
export interface PullWorkerPollerDeps {
  repository: ClaimRepository;
  /** Runs the statements of the worker's transactions. */
  runner: StatementRunner;
  metrics: QueueBoxMetrics;
  /** The bounded metric label of the worker's source. */
  label: string;
  /** The dialect takes the claim lock on every claim (SQL Server), whatever `claimLock` says. */
  claimLockAlways: boolean;
  /** Samples the inbox backlog gauges of the pull sources; one poller of the explorer does it. */
  sampleBacklog?: { every: number; sample(): Promise<void> };
  leaseAdvisor?: LeaseAdvisor;
  events?: QueueBoxEvents;
}

/**
 * Runs one `@PullWorker`: claims rows of its source with its lease (pending, or processing with
 * an expired lease; no reclaim step), and for each row opens a transaction, calls `handle`, and
 * completes the row in that transaction. A lost claim (renewal or completion) aborts the
 * handler's signal and rolls the transaction back; a failing handler is retried with backoff,
 * then dead-lettered; a handler that shutdown stopped gives its row back at once.
 */
export class PullWorkerPoller implements ClaimRole<ClaimedInboxRow> {
  private readonly worker: ClaimWorker<ClaimedInboxRow>;

  constructor(
    private readonly host: PullWorkerHost,
    private readonly options: ResolvedPullWorker,
    private readonly deps: PullWorkerPollerDeps,
  ) {
    this.worker = new ClaimWorker(
      claimWorkerSettings(CLAIMERS.pull, options, {
        name: `PullWorker:${options.name}`,
        stream: deps.label,
        streams: [options.source],
        sampleEveryMs: deps.sampleBacklog?.every,
        metrics: deps.metrics,
      }),
      deps.repository,
      this,
      { metrics: deps.metrics, events: deps.events, leaseAdvisor: deps.leaseAdvisor },
    );
  }

  get source(): string {
    return this.options.source;
  }

  get pollIntervalMs(): number {
    return this.options.pollIntervalMs;
  }

  /** The worker's loop, as health and the admin read it. */
  get status(): ClaimWorkerStatus {
    return this.worker.status;
  }

  start(): void {
    this.worker.start();
  }

  /** Claim now: new rows of the source may be claimable. */
  wake(): void {
    this.worker.wake();
  }

  /**
   * Stops claiming, signals the handlers (their leases are renewed until they end; a handler that
   * fails because of it gives its row back at once), and waits for them up to the shutdown timeout.
   */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  describe(): string {
    const lock = this.options.claimLock || this.deps.claimLockAlways ? ', claim lock' : '';
    return `source ${this.options.source}, lease ${this.options.leaseMs} ms, claim ahead ${this.options.claimAhead}${lock}`;
  }

  async sample(): Promise<void> {
    await this.deps.sampleBacklog?.sample();
  }

  claim(request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.deps.repository.claimPull(this.options.source, request, { lock: this.options.claimLock });
  }

  stream(): string {
    return this.deps.label;
  }

  identify(row: ClaimedInboxRow): ReportedRow {
    return { id: row.id, stream: this.stream(), fields: { rowId: row.id, source: row.source } };
  }

  openSpan(row: ClaimedInboxRow): MessageSpan | undefined {
    return messagingTracer()?.process('pull', row.source, row.idempotencyKey, row.attempts, row.headers);
  }

  /** `handle` and the completion in one transaction: a lost claim rolls both back. */
  work(row: ClaimedInboxRow, job: RowJob): Promise<void> {
    const message = toInboxMessage(row);
    return this.deps.runner.withManager(async (manager) => {
      // The signal is made on first read: most handlers never read it, and each costs an AbortController.
      const context: PullContext = {
        manager,
        get signal() {
          return job.signal;
        },
        source: message.source,
        idempotencyKey: message.idempotencyKey,
      };
      await this.host.handle(message, context);
      await job.finish(manager);
    });
  }
}
