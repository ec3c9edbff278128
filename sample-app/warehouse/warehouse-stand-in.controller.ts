import {
  BadRequestException,
  Body,
  Controller,
  Headers,
  HttpCode,
  Inject,
  Logger,
  Post,
  Req,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { createHash } from 'node:crypto';
import { checkWebhookSignatures, coveredHeadersText, decodeWebhookSecret, webhookSignatures } from '../../lib/index.js';
import type { ParcelPacked, ParcelRequested } from '../shipping/shipping-messages.js';

/** Where the warehouse sends its reports, and the secrets of both directions. */
export interface WarehouseSettings {
  /** The shipping intake's `warehouse` source: `http://127.0.0.1:<shipping port>/inbox/warehouse`. */
  reportUrl: string;
  /** Signs the reports (the intake's `warehouse` source secret). */
  reportSecret: string;
  /** Verifies the requests (the relay's `warehouse` destination secret). */
  requestSecret: string;
}

export const WAREHOUSE_SETTINGS = Symbol('WAREHOUSE_SETTINGS');

/** How far a request's signature timestamp may be from now. */
const TOLERANCE_SECONDS = 300;

/**
 * Stands in for the warehouse, another system in real life: the shipping relay's `warehouse`
 * destination POSTs each `parcel.requested` here, signed with the Standard Webhooks scheme. The
 * warehouse answers only requests whose signature it can verify — it would otherwise sign
 * reports for anyone who asked — then "packs" the parcel and reports `parcel.packed` to the
 * shipping intake (source `warehouse`), signed the same way with its own secret.
 *
 * The report's id is derived from the request's `webhook-id`, so a repeated delivery of one
 * request makes the same report, which the intake stores once (it answers 200, duplicate). The
 * warehouse answers 204 only once the intake has the report; otherwise 503, and the relay's
 * outbox publishes the request again later.
 */
@Controller('warehouse')
export class WarehouseStandInController {
  private readonly logger = new Logger('Warehouse');
  private readonly requestKeys: Buffer[];
  private readonly reportKeys: Buffer[];

  constructor(@Inject(WAREHOUSE_SETTINGS) private readonly settings: WarehouseSettings) {
    this.requestKeys = [keyOf(settings.requestSecret)];
    this.reportKeys = [keyOf(settings.reportSecret)];
  }

  @Post()
  @HttpCode(204)
  async receive(
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: { rawBody?: Buffer },
    @Body() body: Partial<ParcelRequested> | undefined,
  ): Promise<void> {
    const messageId = headers['webhook-id'];
    const key = headers['x-queuebox-key'];
    if (!messageId || !request.rawBody)
      throw new BadRequestException('A signed request (webhook-id, webhook-timestamp, webhook-signature) is required.');
    this.verify(messageId, headers, request.rawBody);
    if (body?.type !== 'parcel.requested' || typeof body.orderId !== 'string' || typeof body.customerId !== 'string') {
      throw new BadRequestException('Expected a parcel.requested message with orderId and customerId.');
    }
    this.logger.log(`received webhook-id ${messageId} (key ${key ?? 'none'}): ${JSON.stringify(body)}`);

    const reportId = `packed-${messageId}`;
    const report: ParcelPacked = {
      type: 'parcel.packed',
      orderId: body.orderId,
      customerId: body.customerId,
      parcelId: parcelIdOf(messageId),
    };
    let status: number;
    try {
      const response = await fetch(this.settings.reportUrl, {
        method: 'POST',
        headers: this.signedReport(reportId, JSON.stringify(report), key),
        body: JSON.stringify(report),
        signal: AbortSignal.timeout(3_000),
      });
      await response.arrayBuffer();
      status = response.status;
    } catch (error) {
      this.logger.warn(
        `could not report parcel of order ${report.orderId}: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new ServiceUnavailableException('The report could not be delivered; try again later.');
    }
    if (status !== 200 && status !== 202) {
      this.logger.warn(`the shipping intake refused report ${reportId} with HTTP ${status}`);
      throw new ServiceUnavailableException('The report was refused; try again later.');
    }
    this.logger.log(
      `packed parcel ${report.parcelId} for order ${report.orderId}; reported it as webhook-id ${reportId} (${status === 202 ? 'stored' : 'duplicate'})`,
    );
  }

  /** The body's signature, and the key's (X-QueueBox-Signature) when the request has one. */
  private verify(messageId: string, headers: Record<string, string | undefined>, rawBody: Buffer): void {
    const now = Math.floor(Date.now() / 1000);
    const check = (signature: string | undefined, content: Buffer | string) =>
      checkWebhookSignatures(
        this.requestKeys,
        messageId,
        headers['webhook-timestamp'],
        signature,
        content,
        now,
        TOLERANCE_SECONDS,
      );
    const body = check(headers['webhook-signature'], rawBody);
    if (body !== 'ok') throw new UnauthorizedException(`webhook-signature: ${body}`);
    if (
      headers['x-queuebox-key'] !== undefined &&
      check(headers['x-queuebox-signature'], coveredHeadersText(headers)) !== 'ok'
    ) {
      throw new UnauthorizedException('X-QueueBox-Key is not covered by a valid X-QueueBox-Signature.');
    }
  }

  /** The report's headers, signed as QueueBox signs, so that the intake can store its key too. */
  private signedReport(reportId: string, text: string, key: string | undefined): Record<string, string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': reportId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignatures(this.reportKeys, reportId, timestamp, text),
    };
    // The customer is the aggregate: the shipping pull worker handles one customer's reports in order.
    if (key) {
      headers['x-queuebox-key'] = key;
      headers['x-queuebox-signature'] = webhookSignatures(
        this.reportKeys,
        reportId,
        timestamp,
        coveredHeadersText(headers),
      );
    }
    return headers;
  }
}

function keyOf(secret: string): Buffer {
  const decoded = decodeWebhookSecret(secret);
  if ('problem' in decoded) throw new Error(`The warehouse stand-in needs ${decoded.problem}.`);
  return decoded.key;
}

/** The same parcel id for every delivery of one request. */
function parcelIdOf(messageId: string): string {
  return `P-${createHash('sha256').update(messageId).digest('hex').slice(0, 10).toUpperCase()}`;
}
