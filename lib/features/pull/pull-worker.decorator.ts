import { DiscoveryService } from '@nestjs/core';
import type { PullWorkerOptions } from '../../shared/interfaces/pull.interface.js';

/** What `@PullWorker` stores on a class; the explorer reads it at start-up. @publicApi */
export interface PullWorkerMetadata extends PullWorkerOptions {
  source: string;
}

/** The discoverable decorator behind `@PullWorker`: the explorer finds its classes by it. Internal. */
export const pullWorkerDecorator = DiscoveryService.createDecorator<PullWorkerMetadata>();

/**
 * Marks a provider class (extending `PullWorkerHost`) as the consumer of an inbox source.
 * QueueBox discovers it at start-up and runs it: claims with `leaseMs`, renews every third of
 * it, calls `handle` in a transaction and completes the row in that transaction.
 * @publicApi
 */
export function PullWorker(source: string, options: PullWorkerOptions = {}): ClassDecorator {
  return pullWorkerDecorator({ ...options, source });
}
