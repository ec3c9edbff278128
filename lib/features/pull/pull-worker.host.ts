import type { InboxMessage } from '../../shared/interfaces/inbox-message.interface.js';
import type { PullContext } from '../../shared/interfaces/pull.interface.js';

/**
 * Base class of every `@PullWorker`. QueueBox calls `handle` once per claimed message, inside a
 * transaction it opened (`context.manager`), then completes the row in that same transaction
 * and commits. Throw to fail the message: the transaction rolls back, and the message is retried
 * with backoff, then dead-lettered.
 *
 * ```ts
 * @PullWorker('payments', { leaseMs: 30_000, concurrency: 4 })
 * export class PaymentsWorker extends PullWorkerHost<PaymentReceived> {
 *   async handle(message: InboxMessage<PaymentReceived>, { manager }: PullContext) {
 *     await manager.insert(Payment, { id: message.payload.paymentId, amount: message.payload.amount });
 *   }
 * }
 * ```
 * @publicApi
 */
export abstract class PullWorkerHost<TPayload = unknown> {
  abstract handle(message: InboxMessage<TPayload>, context: PullContext): Promise<void>;
}
