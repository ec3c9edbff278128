import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxService } from '../../lib/index.js';
import type { CreateOrderInput } from './create-order.input.js';

/** What `POST /orders` answers. */
export interface PlacedOrder {
  orderId: string;
  /** The `X-Message-Id` the billing receiver will see. */
  messageId: string;
}

@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Writes the order and its billing message in one transaction: either both commit, or
   * neither does. QueueBox publishes the message after the commit.
   */
  placeOrder({ customerId, amount }: CreateOrderInput): Promise<PlacedOrder> {
    return this.dataSource.transaction(async (manager) => {
      const [order] = await manager.query<{ id: string; created_at: Date }[]>(
        'INSERT INTO orders (customer_id, amount) VALUES ($1, $2) RETURNING id, created_at',
        [customerId, amount],
      );
      const message = await this.outbox.enqueue(
        {
          destination: 'billing',
          // Messages of one customer reach billing one at a time, oldest first.
          key: customerId,
          payload: { type: 'order.placed', orderId: order.id, customerId, amount, placedAt: order.created_at },
        },
        { manager },
      );
      return { orderId: order.id, messageId: message.messageId };
    });
  }
}
