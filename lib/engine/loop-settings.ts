import type { ClaimComponent } from '../shared/interfaces/claim.interface.js';
import { PACE_BOUNDS } from '../config/options/pace-bounds.js';
import type { ResolvedLoopOptions } from '../config/options/resolved-options.interface.js';
import { type ClaimerDescriptor, loopName } from '../shared/queuebox.claimers.js';
import { AdaptivePace } from './claim-pace.js';
import type { ClaimWorkerSettings } from './claim-worker.js';

/** Where a claim loop reports its pace, its ticks and its failed ticks (`QueueBoxMetrics`). */
export interface LoopMetrics {
  loopPace(component: ClaimComponent, concurrency: number, batchSize: number): void;
  loopTicker(loop: string): () => void;
  loopError(loop: string): void;
}

/** What a claim loop is besides its claimer and its options. */
export interface LoopWiring {
  /** Its logger's name. */
  name: string;
  /** The stream that names a pull worker's loop (its source's metric label); none for the others. */
  stream?: string;
  /** The streams its claims walk in turn (the relay's sources, a pull worker's source). */
  streams?: readonly string[];
  /** How often it samples its backlog gauges; never when undefined. */
  sampleEveryMs?: number;
  /** Its autocommit finishing writes may skip the WAL flush (`outbox.asyncMarks`), where its claimer allows it. */
  asyncMarks?: boolean;
  metrics: LoopMetrics;
}

/**
 * A claim worker's settings, the same way for the outbox poller, the inbox relay and every pull
 * worker: the loop's options as resolved, taken as they are; the adaptive pace within the
 * claimer's bounds when the options left the pace to it; the reclaim step every fifth of the lease,
 * unless the claimer's claims take expired rows themselves; and the loop's metrics under the
 * claimer's names.
 */
export function claimWorkerSettings(
  claimer: ClaimerDescriptor,
  options: ResolvedLoopOptions,
  wiring: LoopWiring,
): ClaimWorkerSettings {
  const { metrics } = wiring;
  const loop = loopName(claimer, wiring.stream);
  const bounds = PACE_BOUNDS[claimer.component];
  return {
    name: wiring.name,
    claimer,
    leaseMs: options.leaseMs,
    pollIntervalMs: options.pollIntervalMs,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    adaptive: options.adaptive,
    claimAhead: options.claimAhead,
    maxAttempts: options.maxAttempts,
    backoff: options.backoff,
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    pace: options.adaptive && bounds ? new AdaptivePace(bounds, options.leaseMs) : undefined,
    // The pace gauges are by component: a claimer with a loop per stream has no one pace to show.
    onPace: claimer.workerPerStream
      ? undefined
      : (concurrency, batchSize) => metrics.loopPace(claimer.component, concurrency, batchSize),
    asyncMarks: claimer.asyncMarks && wiring.asyncMarks === true,
    streams: wiring.streams,
    reclaimEveryMs: claimer.claimsExpired ? undefined : options.leaseMs / 5,
    sampleEveryMs: wiring.sampleEveryMs,
    onLoopError: () => metrics.loopError(loop),
    onLoopTick: metrics.loopTicker(loop),
  };
}
