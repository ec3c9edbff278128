import { Body, Controller, Post } from '@nestjs/common';
import { type OrderPlaced, OrdersService } from './orders.service.js';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  /** POST /orders {"customerId":"c1","amount":12} */
  @Post()
  create(@Body() body: { customerId: string; amount: number }): Promise<OrderPlaced> {
    return this.orders.placeOrder(body.customerId, body.amount);
  }
}
