import type { InboxMessage } from '../interfaces/inbox-message.interface.js';
import type { PullContext } from '../interfaces/pull.interface.js';

/**
 * Base class of every `@PullWorker`. QueueBox calls `handle` once per claimed message, inside a
 * transaction it opened (`context.manager`), then completes the row in that same transaction
 * and commits. Throw to fail the message: the transaction rolls back, and the message is retried
 * with backoff, then dead-lettered.
 *
 * ```ts
 * @PullWorker('payments', { leaseMs: 30_000, concurrency: 4 })
 * export class PaymentsWorker extends PullWorkerHost {
 *   async handle(message: InboxMessage, { manager }: PullContext) {
 *     await manager.insert(Payment, JSON.parse(message.payload));
 *   }
 * }
 * ```
 * @publicApi
 */
export abstract class PullWorkerHost {
  abstract handle(message: InboxMessage, context: PullContext): Promise<void>;
}
