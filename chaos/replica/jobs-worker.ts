import { Injectable, type Type } from '@nestjs/common';
import { PullWorker, PullWorkerHost, type InboxMessage, type PullContext } from 'queuebox';
import { chaosTables } from '../sql/chaos-names.js';
import { recordEffect } from '../sql/business-tables.sql.js';
import type { ReplicaConfig } from './replica-config.js';

interface Job {
  id: string;
  key: string;
}

/**
 * The pull worker of source `jobs`: one business row per message, written in the transaction
 * QueueBox completes the row in. The row is unique per message; a second effect increments its
 * `effects` column, so the checks count it (a unique violation would only retry and hide it).
 * A class per run: `@PullWorker` takes its lease at decoration time.
 */
export function jobsWorkerFor(config: ReplicaConfig): Type<PullWorkerHost<Job>> {
  const effect = recordEffect(chaosTables(config.schema));

  @PullWorker('jobs', {
    leaseMs: config.leaseMs,
    concurrency: 4,
    maxAttempts: 1_000_000,
    pollIntervalMs: 250,
    backoff: { initialDelayMs: 50, maxDelayMs: 500 },
    shutdownTimeoutMs: 2_000,
  })
  @Injectable()
  class JobsWorker extends PullWorkerHost<Job> {
    async handle(message: InboxMessage<Job>, { manager }: PullContext): Promise<void> {
      await manager.query(effect, [message.payload.id, message.payload.key, message.id]);
    }
  }
  return JobsWorker;
}
