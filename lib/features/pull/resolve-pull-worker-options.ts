import { InvalidPullWorkerError } from '../../shared/errors/invalid-pull-worker.error.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { resolveBackoff } from '../../config/options/resolve-options.js';
import { readBoolean, readInt, readObject } from '../../config/options/option-readers.js';
import type { ResolvedLoopOptions, ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { DAY_MS, MAX_INTERVAL_MS } from '../../config/queuebox.limits.js';
import { invalidPullOption } from '../../shared/queuebox.messages.js';
import { keyProblem } from '../../config/validation/keys.js';
import type { PullWorkerMetadata } from './pull-worker.decorator.js';

/** Most messages a pull worker handles at once, and claims ahead. */
const MAX_PULL_CONCURRENCY = 1_000;

/**
 * A pull worker's options with every default applied. Its claims ask for as many rows as it may
 * work on at once (`batchSize` is its `concurrency`), at a fixed pace.
 */
export interface ResolvedPullWorker extends ResolvedLoopOptions {
  name: string;
  source: string;
  claimLock: boolean;
}

/**
 * Validates the options of one `@PullWorker` class at start-up. Throws `InvalidPullWorkerError`
 * naming the class and the option.
 */
export function resolvePullWorkerOptions(
  name: string,
  metadata: PullWorkerMetadata,
  options: ResolvedQueueBoxOptions,
): ResolvedPullWorker {
  try {
    const { source } = metadata;
    const sourceProblem = keyProblem(source);
    if (sourceProblem)
      throw new InvalidPullWorkerError(
        name,
        invalidPullOption(name, 'source', source, `a valid source name (it ${sourceProblem})`),
        'source',
      );
    const declared = options.inbox.sources;
    if (declared && !declared.has(source)) {
      throw new InvalidPullWorkerError(
        name,
        invalidPullOption(
          name,
          'source',
          source,
          `a source declared in inbox.sources (${[...declared.keys()].join(', ')})`,
        ),
        'source',
      );
    }
    const concurrency = readInt(metadata.concurrency, 'concurrency', 1, 1, MAX_PULL_CONCURRENCY);
    return {
      name,
      source,
      leaseMs: readInt(metadata.leaseMs, 'leaseMs', 30_000, 100, MAX_INTERVAL_MS),
      concurrency,
      batchSize: concurrency,
      adaptive: false,
      claimAhead: readInt(metadata.claimAhead, 'claimAhead', concurrency, 0, MAX_PULL_CONCURRENCY),
      maxAttempts: readInt(metadata.maxAttempts, 'maxAttempts', 10, 1, 1_000_000),
      backoff: resolveBackoff(readObject(metadata.backoff, 'backoff'), 'backoff'),
      pollIntervalMs: readInt(metadata.pollIntervalMs, 'pollIntervalMs', 1_000, 10, DAY_MS),
      claimLock: readBoolean(metadata.claimLock, 'claimLock', false),
      shutdownTimeoutMs: readInt(
        metadata.shutdownTimeoutMs,
        'shutdownTimeoutMs',
        options.workers.shutdownTimeoutMs,
        0,
        DAY_MS,
      ),
    };
  } catch (error) {
    if (!(error instanceof InvalidQueueBoxOptionsError)) throw error;
    throw new InvalidPullWorkerError(
      name,
      `@PullWorker class ${name}: ${error.message.replace(/^QueueBox option /, 'option ')}`,
      error.path,
    );
  }
}
