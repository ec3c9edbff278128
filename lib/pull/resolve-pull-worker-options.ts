import { InvalidPullWorkerError } from '../errors/invalid-pull-worker.error.js';
import { InvalidQueueBoxOptionsError } from '../errors/invalid-queuebox-options.error.js';
import { resolveBackoff } from '../options/resolve-options.js';
import { readBoolean, readInt, readObject } from '../options/option-readers.js';
import type { ResolvedBackoff, ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { invalidPullOption } from '../queuebox.messages.js';
import type { PullWorkerMetadata } from './pull-worker.decorator.js';

/** A pull worker's options with every default applied. */
export interface ResolvedPullWorker {
  name: string;
  source: string;
  leaseMs: number;
  concurrency: number;
  maxAttempts: number;
  backoff: ResolvedBackoff;
  pollIntervalMs: number;
  claimLock: boolean;
  shutdownTimeoutMs: number;
}

const MAX_INT_MS = 2_147_483_647;

/**
 * Validates the options of one `@PullWorker` class at start-up. Throws `InvalidPullWorkerError`
 * naming the class and the option.
 */
export function resolvePullWorkerOptions(name: string, metadata: PullWorkerMetadata, options: ResolvedQueueBoxOptions): ResolvedPullWorker {
  try {
    const { source } = metadata;
    if (typeof source !== 'string' || source.length === 0 || source.length > 200) {
      throw new InvalidPullWorkerError(name, invalidPullOption(name, 'source', source, 'a string of 1 to 200 characters'), 'source');
    }
    const declared = options.inbox.sources;
    if (declared && !declared.has(source)) {
      throw new InvalidPullWorkerError(name, invalidPullOption(name, 'source', source, `a source declared in inbox.sources (${[...declared.keys()].join(', ')})`), 'source');
    }
    return {
      name,
      source,
      leaseMs: readInt(metadata.leaseMs, 'leaseMs', 30_000, 100, MAX_INT_MS),
      concurrency: readInt(metadata.concurrency, 'concurrency', 1, 1, 1_000),
      maxAttempts: readInt(metadata.maxAttempts, 'maxAttempts', 10, 1, 1_000_000),
      backoff: resolveBackoff(readObject(metadata.backoff, 'backoff'), 'backoff'),
      pollIntervalMs: readInt(metadata.pollIntervalMs, 'pollIntervalMs', 1_000, 10, 86_400_000),
      claimLock: readBoolean(metadata.claimLock, 'claimLock', false),
      shutdownTimeoutMs: readInt(metadata.shutdownTimeoutMs, 'shutdownTimeoutMs', options.outbox.shutdownTimeoutMs, 0, 86_400_000),
    };
  } catch (error) {
    if (!(error instanceof InvalidQueueBoxOptionsError)) throw error;
    throw new InvalidPullWorkerError(name, `@PullWorker class ${name}: ${error.message.replace(/^QueueBox option /, 'option ')}`, error.path);
  }
}
