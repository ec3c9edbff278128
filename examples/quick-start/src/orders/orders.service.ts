import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { OutboxService } from 'queuebox';
import { DataSource } from 'typeorm';

export interface OrderPlaced {
  orderId: string;
  customerId: string;
  amount: number;
}

@Injectable()
export class OrdersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  /** The order and its message commit together, or neither does. */
  placeOrder(customerId: string, amount: number): Promise<OrderPlaced> {
    return this.dataSource.transaction(async (manager) => {
      const order: OrderPlaced = { orderId: randomUUID(), customerId, amount };
      await manager.query(`INSERT INTO orders (id, customer_id, amount) VALUES ($1, $2, $3)`, [order.orderId, customerId, amount]);
      // The key keeps one customer's messages in order.
      await this.outbox.enqueue<OrderPlaced>({ destination: 'billing', key: customerId, payload: order }, { manager });
      return order;
    });
  }
}
