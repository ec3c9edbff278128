import { Body, Controller, Get, Headers, HttpCode, Logger, Post } from '@nestjs/common';

/**
 * The receiving side, here in the same app for the demo: QueueBox delivers at least once, so a
 * receiver deduplicates on the message id (in a real service: a unique column, or QueueBox's inbox).
 */
@Controller('billing')
export class BillingController {
  private readonly logger = new Logger(BillingController.name);
  private readonly received = new Map<string, unknown>();

  @Post('hooks')
  @HttpCode(204)
  receive(@Headers('x-message-id') messageId: string, @Body() order: unknown): void {
    if (this.received.has(messageId)) return;
    this.received.set(messageId, order);
    this.logger.log(`received message ${messageId}: ${JSON.stringify(order)}`);
  }

  /** What arrived, by message id. */
  @Get('received')
  list(): Record<string, unknown> {
    return Object.fromEntries(this.received);
  }
}
