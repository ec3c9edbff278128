import { Inject, Injectable, Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from 'typeorm';
import type { Claim, FenceResult } from '../../shared/interfaces/claim.interface.js';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { WalkCursor } from '../../engine/walk-cursor.js';
import { ClaimLostError } from '../../shared/errors/claim-lost.error.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import { UnknownSourceError } from '../../shared/errors/unknown-source.error.js';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import { toInboxMessage } from '../inbox/inbox-message.mapper.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';
import type { PullClaimOptions, PulledMessage } from '../../shared/interfaces/pull.interface.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import { MAX_INTERVAL_MS } from '../../config/queuebox.limits.js';
import {
  claimLost,
  deadLetterNeedsReason,
  invalidInteger,
  invalidPullSource,
  unknownSource,
} from '../../shared/queuebox.messages.js';
import { ClaimOutcomes, type LossFinder, type ReportedRow } from '../../engine/claim-outcomes.js';
import { type RowOutcome } from '../../engine/metrics/outcome-metrics.interface.js';
import { keyProblem } from '../../config/validation/keys.js';

/** Lease bounds: a claim shorter than 100 ms cannot be renewed in time; SQL Server's DATEADD takes an int. */
const MIN_LEASE_MS = 100;
/** Sources whose walk position is remembered. */
const MAX_CURSORS = 1_000;
/** Most rows one pull claim takes. */
const MAX_BATCH = 1_000;

/**
 * The pull API: claim inbox rows of a source with a lease you choose, renew it, and finish each
 * row with a fenced write. Every fenced write must change exactly one row; when it changes none
 * the claim was lost and the call throws `ClaimLostError` (inside `dataSource.transaction`, that
 * rolls your business change back). Never retry with another token.
 * @publicApi
 */
@Injectable()
export class PullService {
  private readonly cursors = new Map<string, WalkCursor>();
  /** When each claim this service returned was made: how much of its lease the work used. */
  private readonly claimedAt = new WeakMap<Claim, number>();
  private readonly outcomes: ClaimOutcomes;

  constructor(
    private readonly repository: ClaimRepository,
    metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    events: QueueBoxEvents,
    leaseAdvisor: LeaseAdvisor,
  ) {
    this.outcomes = new ClaimOutcomes(CLAIMERS.pull, new Logger(PullService.name), metrics, events, leaseAdvisor);
  }

  /** Claims the next message of `source` (a pending one, or one whose lease expired), or returns null. */
  async claim<TPayload = unknown>(source: string, options: PullClaimOptions): Promise<PulledMessage<TPayload> | null> {
    const [message] = await this.claimBatch<TPayload>(source, { ...options, max: 1 });
    return message ?? null;
  }

  /** Claims up to `max` messages of `source`: at most one per aggregate, the oldest of each. */
  async claimBatch<TPayload = unknown>(
    source: string,
    options: PullClaimOptions & { max: number },
  ): Promise<PulledMessage<TPayload>[]> {
    const leaseMs = checkInt(options.leaseMs, 'leaseMs', MIN_LEASE_MS, MAX_INTERVAL_MS);
    const max = checkInt(options.max, 'max', 1, MAX_BATCH);
    const sources = this.options.inbox.sources;
    const sourceProblem = keyProblem(source);
    if (sourceProblem) throw new InvalidArgumentError('source', invalidPullSource(sourceProblem));
    if (sources && !sources.has(source))
      throw new UnknownSourceError(source, unknownSource(source, [...sources.keys()]));
    const cursor = this.cursorOf(source);
    const request = cursor.request(max, leaseMs);
    const { rows, progress, skipped } = await this.repository.claimPull(source, request, {
      lock: options.claimLock ?? false,
    });
    if (!skipped) cursor.advance(request, progress);
    const stream = this.labels.of(source);
    this.outcomes.inverted(
      rows.filter((row) => row.inverted).map((row) => ({ ...identify(row.id, source, stream), key: row.key })),
    );
    const now = performance.now();
    return rows.map((row) => {
      const claim: Claim = { component: 'pull', id: row.id, token: row.token, leaseMs };
      this.claimedAt.set(claim, now);
      // Assigned, not spread: spreading would read (and parse) the payload now.
      return Object.assign(toInboxMessage<TPayload>(row), { claim });
    });
  }

  /** Each source's walk over keys resumes where its last claim stopped: every key gets its turn. */
  private cursorOf(source: string): WalkCursor {
    let cursor = this.cursors.get(source);
    if (!cursor) {
      // Bounded: an application that pulls from an open set of sources cannot grow this forever.
      if (this.cursors.size >= MAX_CURSORS) this.cursors.clear();
      cursor = new WalkCursor([source]);
      this.cursors.set(source, cursor);
    }
    return cursor;
  }

  /** Extends the lease by `leaseMs` from the database clock. Throws `ClaimLostError` when lost. */
  async renew(message: PulledMessage): Promise<void> {
    await this.fenced(message, 'work', await this.repository.renew(message.claim));
  }

  /**
   * Marks the row `processed` in your transaction (`manager`). Throws `ClaimLostError` when the
   * claim was lost: let it propagate so that your transaction rolls back.
   */
  async complete(message: PulledMessage, options: { manager?: EntityManager } = {}): Promise<void> {
    await this.fenced(message, 'finish', await this.repository.complete(message.claim, options), 'done');
  }

  /** Returns the row to `pending`, due after `delayMs`, keeping `error`. Throws `ClaimLostError` when lost. */
  async retry(
    message: PulledMessage,
    options: { delayMs?: number; error?: string; manager?: EntityManager } = {},
  ): Promise<void> {
    const delayMs = checkInt(options.delayMs ?? 0, 'delayMs', 0, MAX_INTERVAL_MS);
    await this.fenced(
      message,
      'retry',
      await this.repository.retry(message.claim, delayMs, options.error ?? 'retried by the client', options),
      'retried',
    );
  }

  /** Marks the row `dead`, keeping `reason`. Throws `ClaimLostError` when lost. */
  async deadLetter(message: PulledMessage, options: { reason: string; manager?: EntityManager }): Promise<void> {
    if (typeof options?.reason !== 'string' || options.reason.length === 0)
      throw new InvalidArgumentError('reason', deadLetterNeedsReason());
    const result = await this.repository.deadLetter(message.claim, options.reason, options);
    await this.fenced(message, 'dead-letter', result, 'dead');
    this.outcomes.deadLettered(
      identify(message.claim.id, message.source, this.labels.of(message.source)),
      message.attempt,
      options.reason,
    );
  }

  /**
   * Reports a fenced write as the claim workers report theirs (metrics, events, the lease
   * advisor); on a loss, logs once, and throws. `ends`: the write finished the row's claim.
   */
  private async fenced(
    message: PulledMessage<unknown>,
    write: LossFinder,
    result: FenceResult,
    ends?: Exclude<RowOutcome, 'lost'>,
  ): Promise<void> {
    const { claim } = message;
    const row = identify(claim.id, message.source, this.labels.of(message.source));
    if (result === 'ok' && !ends) {
      this.outcomes.renewed(row.stream);
      return;
    }
    const started = this.claimedAt.get(claim);
    if (started !== undefined) {
      this.claimedAt.delete(claim);
      this.outcomes.leaseUsed(row.stream, claim.leaseMs, performance.now() - started, result === 'lost');
    }
    if (result === 'ok') {
      this.outcomes.ended(row.stream, ends!);
      return;
    }
    this.outcomes.lost(row, write);
    throw new ClaimLostError('pull', claim.id, claimLost('pull', claim.id));
  }
}

/** A pulled row as outcomes report it: its source's bounded label is its stream. */
function identify(id: string, source: string, stream: string): ReportedRow {
  return { id, stream, fields: { rowId: id, source } };
}

function checkInt(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(field, invalidInteger(field, min, max));
  }
  return value;
}
