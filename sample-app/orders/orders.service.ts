import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxService } from '../../lib/index.js';
import type { CreateOrderInput } from './create-order.input.js';

/** What `POST /orders` answers. */
export interface PlacedOrder {
  orderId: string;
  /** The message id of each message, by destination: the billing receiver sees it as `X-Message-Id`, the shipping intake (signed) as `webhook-id`. */
  messageIds: { billing: string; shipping: string };
}

@Injectable()
export class OrdersService {
  private readonly logger = new Logger('Orders');

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Writes the order and its two messages in one transaction: either all three rows commit, or
   * none does. QueueBox publishes the messages after the commit.
   */
  async placeOrder({ customerId, amount }: CreateOrderInput): Promise<PlacedOrder> {
    const placed = await this.dataSource.transaction(async (manager) => {
      const [order] = await manager.query<{ id: string; created_at: Date }[]>(
        'INSERT INTO orders (customer_id, amount) VALUES ($1, $2) RETURNING id, created_at',
        [customerId, amount],
      );
      const payload = { type: 'order.placed', orderId: order.id, customerId, amount, placedAt: order.created_at };
      // One call, one INSERT statement for both rows. Messages of one customer reach each
      // destination one at a time, oldest first (the key).
      const [billing, shipping] = await this.outbox.enqueue(
        [
          { destination: 'billing', key: customerId, payload },
          { destination: 'shipping', key: customerId, payload },
        ],
        { manager },
      );
      return { orderId: order.id, messageIds: { billing: billing.messageId, shipping: shipping.messageId } };
    });
    this.logger.log(
      `order ${placed.orderId} committed with two outbox messages: billing X-Message-Id ${placed.messageIds.billing}, shipping webhook-id ${placed.messageIds.shipping}`,
    );
    return placed;
  }
}
