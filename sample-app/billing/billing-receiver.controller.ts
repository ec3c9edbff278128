import { BadRequestException, Body, Controller, Headers, HttpCode, Logger, Post } from '@nestjs/common';

/** Message ids remembered for duplicate detection; the oldest are forgotten first. */
const REMEMBERED_IDS = 10_000;

/**
 * Stands in for the billing service: the `billing` destination POSTs here. It shows what a
 * receiver gets (the `X-Message-Id` header, the ordering key, the JSON payload) and how it
 * absorbs a duplicate. A real receiver records the ids it processed in its own database, in the
 * transaction of its own change, instead of in memory.
 */
@Controller('billing-receiver')
export class BillingReceiverController {
  private readonly logger = new Logger('BillingReceiver');
  private readonly seen = new Set<string>();

  @Post()
  @HttpCode(204)
  receive(
    @Headers('x-message-id') messageId: string | undefined,
    @Headers('x-queuebox-key') key: string | undefined,
    @Body() body: unknown,
  ): void {
    if (!messageId) throw new BadRequestException('The X-Message-Id header is required.');
    if (this.seen.has(messageId)) {
      this.logger.warn(`duplicate X-Message-Id ${messageId}: already processed, ignored`);
      return;
    }
    this.remember(messageId);
    this.logger.log(`received X-Message-Id ${messageId} (key ${key ?? 'none'}): ${JSON.stringify(body)}`);
  }

  private remember(messageId: string): void {
    this.seen.add(messageId);
    if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value!);
  }
}
