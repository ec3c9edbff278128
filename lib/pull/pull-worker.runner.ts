import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import type { Claim } from '../interfaces/claim.interface.js';
import type { ClaimRepository, ClaimResult } from '../claims/claim.repository.js';
import type { ClaimedInboxRow } from '../claims/claimed-inbox-row.interface.js';
import type { ClaimRequest } from '../dialects/sql-dialect.interface.js';
import type { Lease } from '../claims/lease-group.js';
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
      component: 'pull',
      leaseMs: worker.leaseMs,
      streams: [worker.source],
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
    this.leases.cancelAll(new Error(shutdownReason()));
    await this.drain();
  }

  protected async claim(request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    const result = await this.deps.repository.claimPull(this.worker.source, request, { lock: this.worker.claimLock });
    this.countInversions(result.rows);
    return result;
  }

  protected renewMany(claims: readonly Claim[]): Promise<Claim[]> {
    return this.deps.repository.renewMany(claims);
  }

  /** Handles one claimed row to its end. Never throws: every outcome is logged and counted. */
  protected async process(row: ClaimedInboxRow, lease: Lease): Promise<void> {
    const claim = lease.claim;
    const message = toInboxMessage(row);
    lease.detail = message;
    const started = performance.now();
    try {
      if (message.attempt > this.worker.maxAttempts) {
        lease.release();
        await this.finishFailed(claim, message, new Error(maxAttemptsWithoutOutcome()), true);
        return;
      }
      const result = await this.runLeased(lease, () =>
        withMessageSpan(`pull ${message.source}`, message.headers, { 'messaging.source.name': message.source }, () => this.handleInTransaction(message, lease)),
      );
      if (result.outcome === 'left') return;
      if (result.outcome === 'failed') {
        await this.finishFailed(claim, message, result.error, false);
        return;
      }
      this.deps.metrics.pullHandled(this.deps.label, 'processed', (performance.now() - started) / 1000);
      this.countInversions(result.value);
      this.adopt(result.value);
    } catch (error) {
      this.logger.error({ message: 'pull finishing write failed; the row is claimable again once its lease ends', rowId: claim.id, error: errorText(error) });
    }
  }

  /**
   * `handle` and the completion in one transaction. The lease is released before the completion
   * (its renewal skips rows another transaction holds, so it never waits for this one). A claim
   * lost meanwhile rolls everything back. The completion hands the key on to its next row, which
   * comes back once the transaction committed.
   */
  private async handleInTransaction(message: InboxMessage, lease: Lease): Promise<ClaimedInboxRow[]> {
    return this.deps.dataSource.transaction(async (manager) => {
      await this.host.handle(message, { manager, signal: lease.signal, source: message.source, idempotencyKey: message.idempotencyKey });
      lease.release();
      if (lease.lost) throw lease.signal.reason;
      const handOff = this.claiming ? this.worker.leaseMs : undefined;
      const { lost, claimed } = await this.deps.repository.completeMany<ClaimedInboxRow>([lease.claim], handOff, { manager });
      if (lost.length > 0) throw new ClaimLostError('pull', lease.claim.id, claimLost('pull', lease.claim.id));
      return claimed;
    });
  }

  private countInversions(rows: readonly ClaimedInboxRow[]): void {
    this.deps.metrics.pullOrderInversions(this.deps.label, rows.filter((row) => row.inverted === true).length);
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
      this.reportLost(claim.id, message.source, new ClaimLostError('pull', claim.id, claimLost('pull', claim.id)));
      return;
    }
    if (releasing) return;
    this.deps.metrics.pullHandled(this.deps.label, dead ? 'dead' : 'retried');
    const log = { message: dead ? 'pulled message dead-lettered' : 'pull handler failed; retrying', rowId: claim.id, source: message.source, attempt: message.attempt, error: text };
    if (dead) this.logger.error(log);
    else this.logger.warn(log);
  }

  protected claimLost(lease: Lease, cause: unknown): void {
    this.reportLost(lease.claim.id, (lease.detail as InboxMessage | undefined)?.source, cause);
  }

  private reportLost(rowId: string, source: string | undefined, cause: unknown): void {
    this.logger.warn({ message: claimLost('pull', rowId), rowId, source, error: errorText(cause) });
    this.deps.metrics.claimLost('pull');
    this.deps.metrics.pullHandled(this.deps.label, 'lost');
  }

}
