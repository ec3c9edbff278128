import { Body, Controller, Post } from '@nestjs/common';
import { parseCreateOrder } from './create-order.input.js';
import { OrdersService, type PlacedOrder } from './orders.service.js';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  /** `POST /orders {"customerId": "c1", "amount": 12}` → 201 `{ orderId, messageIds: { billing, shipping } }`. */
  @Post()
  create(@Body() body: unknown): Promise<PlacedOrder> {
    return this.orders.placeOrder(parseCreateOrder(body));
  }
}
