import { Injectable, Logger } from '@nestjs/common';
import type { InboxMessage, InboxTransform, OutboxMessageInput } from '../../lib/index.js';
import { checkMessage, type OrderPlaced, type ParcelRequested } from './shipping-messages.js';

/**
 * The relay's transform for the `orders` route, a provider resolved through Nest DI: it turns
 * each received `order.placed` into the `parcel.requested` the warehouse expects. The route's
 * destination (`warehouse`) and the aggregate key (the customer) are kept. Throwing fails the
 * forward: the relay retries it with backoff, then marks the inbox row `dead`.
 */
@Injectable()
export class OrderToWarehouseTransform implements InboxTransform<OrderPlaced> {
  private readonly logger = new Logger('ShippingRelay');

  transform(message: InboxMessage<OrderPlaced>): Partial<Omit<OutboxMessageInput, 'delayMs'>> {
    const order = checkMessage<OrderPlaced>(message.payload, 'order.placed', ['orderId', 'customerId']);
    const payload: ParcelRequested = { type: 'parcel.requested', orderId: order.orderId, customerId: order.customerId };
    this.logger.log(
      `inbox row ${message.id} (source ${message.source}, webhook-id ${message.idempotencyKey}, attempt ${message.attempt}): ` +
        `forwarding order ${order.orderId} to the warehouse (outbox row and inbox mark commit together)`,
    );
    return { payload };
  }
}
