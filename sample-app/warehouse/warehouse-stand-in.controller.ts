import { BadRequestException, Body, Controller, Headers, HttpCode, Inject, Logger, Post, ServiceUnavailableException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { signMessage } from '../../lib/index.js';
import type { ParcelPacked, ParcelRequested } from '../shipping/shipping-messages.js';

/** Where the warehouse sends its reports, and the secret it signs them with. */
export interface WarehouseSettings {
  /** The shipping intake's `warehouse` source: `http://127.0.0.1:<shipping port>/inbox/warehouse`. */
  reportUrl: string;
  secret: string;
}

export const WAREHOUSE_SETTINGS = Symbol('WAREHOUSE_SETTINGS');

/**
 * Stands in for the warehouse, another system in real life: the shipping relay's `warehouse`
 * destination POSTs each `parcel.requested` here. The warehouse "packs" the parcel and reports
 * `parcel.packed` to the shipping intake (source `warehouse`), signed the way QueueBox signs:
 * `X-QueueBox-Signature: t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<message id>.<body>">`.
 *
 * The report's id is derived from the request's `X-Message-Id`, so a repeated delivery of one
 * request makes the same report, which the intake stores once (it answers 200, duplicate). The
 * warehouse answers 204 only once the intake has the report; otherwise 503, and the relay's
 * outbox publishes the request again later.
 */
@Controller('warehouse')
export class WarehouseStandInController {
  private readonly logger = new Logger('Warehouse');

  constructor(@Inject(WAREHOUSE_SETTINGS) private readonly settings: WarehouseSettings) {}

  @Post()
  @HttpCode(204)
  async receive(
    @Headers('x-message-id') messageId: string | undefined,
    @Headers('x-queuebox-key') key: string | undefined,
    @Body() body: Partial<ParcelRequested> | undefined,
  ): Promise<void> {
    if (!messageId) throw new BadRequestException('The X-Message-Id header is required.');
    if (body?.type !== 'parcel.requested' || typeof body.orderId !== 'string' || typeof body.customerId !== 'string') {
      throw new BadRequestException('Expected a parcel.requested message with orderId and customerId.');
    }
    this.logger.log(`received X-Message-Id ${messageId} (key ${key ?? 'none'}): ${JSON.stringify(body)}`);

    const reportId = `packed-${messageId}`;
    const report: ParcelPacked = { type: 'parcel.packed', orderId: body.orderId, customerId: body.customerId, parcelId: parcelIdOf(messageId) };
    const text = JSON.stringify(report);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'X-Message-Id': reportId,
      'X-QueueBox-Signature': signMessage(this.settings.secret, reportId, text, Math.floor(Date.now() / 1000)),
    };
    // The customer is the aggregate: the shipping pull worker handles one customer's reports in order.
    if (key) headers['X-QueueBox-Key'] = key;
    let status: number;
    try {
      const response = await fetch(this.settings.reportUrl, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(3_000) });
      await response.arrayBuffer();
      status = response.status;
    } catch (error) {
      this.logger.warn(`could not report parcel of order ${report.orderId}: ${error instanceof Error ? error.message : String(error)}`);
      throw new ServiceUnavailableException('The report could not be delivered; try again later.');
    }
    if (status !== 200 && status !== 202) {
      this.logger.warn(`the shipping intake refused report ${reportId} with HTTP ${status}`);
      throw new ServiceUnavailableException('The report was refused; try again later.');
    }
    this.logger.log(`packed parcel ${report.parcelId} for order ${report.orderId}; reported it as X-Message-Id ${reportId} (${status === 202 ? 'stored' : 'duplicate'})`);
  }
}

/** The same parcel id for every delivery of one request. */
function parcelIdOf(messageId: string): string {
  return `P-${createHash('sha256').update(messageId).digest('hex').slice(0, 10).toUpperCase()}`;
}
