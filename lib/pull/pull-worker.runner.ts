import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import type { Claim } from '../interfaces/claim.interface.js';
import type { ClaimRepository } from '../claims/claim.repository.js';
import type { ClaimedInboxRow } from '../claims/claimed-inbox-row.interface.js';
import type { LeaseKeeper } from '../claims/lease-keeper.js';
import { ClaimLostError } from '../errors/claim-lost.error.js';
import { toInboxMessage } from '../inbox/inbox-message.mapper.js';
import type { InboxMessage } from '../interfaces/inbox-message.interface.js';
import type { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import { claimLost, maxAttemptsWithoutOutcome, shutdownReason } from '../queuebox.messages.js';
import { backoffDelay } from '../runtime/backoff.js';
import { ClaimWorker } from '../runtime/claim-worker.js';
import { errorText } from '../runtime/error-text.js';
import { withMessageSpan } from '../tracing/trace-context.js';
import type { PullWorkerHost } from './pull-worker.host.js';
import type { ResolvedPullWorker } from './resolve-pull-worker-options.js';

/** What a runner needs besides its worker. */
export interface PullWorkerRunnerDeps {
  repository: ClaimRepository;
  dataSource: DataSource;
  metrics: QueueBoxMetrics;
  /** The bounded metric label of the worker's source. */
  label: string;
  /** Samples the inbox backlog gauges of the pull sources; one runner of the explorer does it. */
  sampleBacklog?: { every: number; sample(): Promise<void> };
}

/**
 * Runs one `@PullWorker`: claims rows of its source with its lease (pending, or processing with
 * an expired lease; no reclaim step), and for each row opens a transaction, calls `handle`, and
 * completes the row in that transaction. A lost claim (renewal or completion) aborts the
 * handler's signal and rolls the transaction back; a failing handler is retried with backoff,
 * then dead-lettered.
 */
export class PullWorkerRunner extends ClaimWorker<ClaimedInboxRow> {
  private shuttingDown = false;

  constructor(
    private readonly host: PullWorkerHost,
    private readonly worker: ResolvedPullWorker,
    private readonly deps: PullWorkerRunnerDeps,
  ) {
    super({
      name: `PullWorker:${worker.name}`,
      pollIntervalMs: worker.pollIntervalMs,
      batchSize: worker.concurrency,
      concurrency: worker.concurrency,
      shutdownTimeoutMs: worker.shutdownTimeoutMs,
      sampleEveryMs: deps.sampleBacklog?.every,
      onLoopError: () => deps.metrics.loopError(`pull:${deps.label}`),
    });
  }

  protected describe(): string {
    return `source ${this.worker.source}, lease ${this.worker.leaseMs} ms${this.worker.claimLock ? ', claim lock' : ''}`;
  }

  protected override async sample(): Promise<void> {
    await this.deps.sampleBacklog?.sample();
  }

  get source(): string {
    return this.worker.source;
  }

  get pollIntervalMs(): number {
    return this.worker.pollIntervalMs;
  }

  start(): void {
    this.startLoop();
  }

  /** Stops claiming, signals the handlers, and waits for them up to the shutdown timeout. */
  async stop(): Promise<void> {
    // Handlers see shutdown on their signal; their leases are renewed until they end.
    this.shuttingDown = true;
    this.cancelInFlight(new Error(shutdownReason()));
    await this.drain();
  }

  protected async claim(count: number): Promise<ClaimedInboxRow[]> {
    const { source, leaseMs, claimLock } = this.worker;
    const rows = await this.deps.repository.claimPull(source, count, leaseMs, { lock: claimLock });
    this.deps.metrics.pullOrderInversions(this.deps.label, rows.filter((row) => row.inverted).length);
    return rows;
  }

  /** Handles one claimed row to its end. Never throws: every outcome is logged and counted. */
  protected async process(row: ClaimedInboxRow): Promise<void> {
    const claim: Claim = { component: 'pull', id: String(row.id), token: row.claim_token, leaseMs: this.worker.leaseMs };
    const message = toInboxMessage(row);
    const started = performance.now();
    try {
      if (message.attempt > this.worker.maxAttempts) {
        await this.finishFailed(claim, message, new Error(maxAttemptsWithoutOutcome()), true);
        return;
      }
      const result = await this.runLeased(
        claim,
        (c) => this.deps.repository.renew(c),
        (lost, cause) => this.claimLost(lost, message, cause),
        (keeper) => withMessageSpan(`pull ${message.source}`, message.headers, { 'messaging.source.name': message.source }, () => this.handleInTransaction(claim, message, keeper)),
      );
      if (result.outcome === 'left') return;
      if (result.outcome === 'failed') {
        await this.finishFailed(claim, message, result.error, false);
        return;
      }
      this.deps.metrics.pullHandled(this.deps.label, 'processed', (performance.now() - started) / 1000);
    } catch (error) {
      this.logger.error({ message: 'pull finishing write failed; the row is claimable again once its lease ends', rowId: claim.id, error: errorText(error) });
    } finally {
      if (message.key !== null) this.wake();
    }
  }

  /**
   * `handle` and the completion in one transaction. The renewal stops before the completion: a
   * renewal on another connection would wait for this transaction's row lock and then report a
   * loss that did not happen. A claim lost meanwhile rolls everything back.
   */
  private async handleInTransaction(claim: Claim, message: InboxMessage, keeper: LeaseKeeper): Promise<void> {
    await this.deps.dataSource.transaction(async (manager) => {
      await this.host.handle(message, { manager, signal: keeper.signal, source: message.source, idempotencyKey: message.idempotencyKey });
      await keeper.stop();
      if (keeper.lost) throw keeper.signal.reason;
      if ((await this.deps.repository.complete(claim, { manager })) === 'lost') throw new ClaimLostError('pull', claim.id, claimLost('pull', claim.id));
    });
  }

  private async finishFailed(claim: Claim, message: InboxMessage, error: unknown, exhausted: boolean): Promise<void> {
    const { maxAttempts, backoff } = this.worker;
    const text = errorText(error);
    // A handler stopped by shutdown gives its row back at once instead of holding it for a lease.
    const releasing = this.shuttingDown && !exhausted;
    const dead = !releasing && (exhausted || message.attempt >= maxAttempts);
    const delay = releasing ? 0 : backoffDelay(message.attempt, backoff);
    const written = dead ? await this.deps.repository.deadLetter(claim, text) : await this.deps.repository.retry(claim, delay, text);
    if (written === 'lost') {
      this.claimLost(claim, message, new ClaimLostError('pull', claim.id, claimLost('pull', claim.id)));
      return;
    }
    if (releasing) return;
    this.deps.metrics.pullHandled(this.deps.label, dead ? 'dead' : 'retried');
    const log = { message: dead ? 'pulled message dead-lettered' : 'pull handler failed; retrying', rowId: claim.id, source: message.source, attempt: message.attempt, error: text };
    if (dead) this.logger.error(log);
    else this.logger.warn(log);
  }

  private claimLost(claim: Claim, message: InboxMessage, cause: unknown): void {
    this.logger.warn({ message: claimLost('pull', claim.id), rowId: claim.id, source: message.source, error: errorText(cause) });
    this.deps.metrics.claimLost('pull');
    this.deps.metrics.pullHandled(this.deps.label, 'lost');
  }
}
