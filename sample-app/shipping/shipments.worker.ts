import { Injectable, Logger } from '@nestjs/common';
import { PullWorker, PullWorkerHost, type InboxMessage, type PullContext } from '../../lib/index.js';
import { checkMessage, type ParcelPacked } from './shipping-messages.js';
import { SHIPPING_SCHEMA, WAREHOUSE_SOURCE } from './shipping.constants.js';

/**
 * Consumes the warehouse's reports (inbox source `warehouse`) and records one shipment each.
 * QueueBox claims a report with a 15 s lease (renewed every 5 s while `handle` runs), opens a
 * transaction, calls `handle`, then marks the inbox row `processed` in that same transaction: the
 * shipment and the completion commit together, or neither does. Up to 4 reports are handled at
 * once, one at a time per customer (the aggregate), oldest first.
 */
@PullWorker(WAREHOUSE_SOURCE, { leaseMs: 15_000, concurrency: 4 })
@Injectable()
export class ShipmentsWorker extends PullWorkerHost<ParcelPacked> {
  private readonly logger = new Logger('ShipmentsWorker');

  async handle(message: InboxMessage<ParcelPacked>, { manager, idempotencyKey }: PullContext): Promise<void> {
    const report = checkMessage<ParcelPacked>(message.payload, 'parcel.packed', ['orderId', 'customerId', 'parcelId']);
    // `manager` is the transaction QueueBox opened for this message; write through it, never through the DataSource.
    await manager.query(
      `INSERT INTO "${SHIPPING_SCHEMA}".shipments (order_id, customer_id, parcel_id, report_message_id) VALUES ($1, $2, $3, $4)`,
      [report.orderId, report.customerId, report.parcelId, idempotencyKey],
    );
    this.logger.log(
      `inbox row ${message.id} (source ${message.source}, webhook-id ${idempotencyKey}): shipment of order ${report.orderId} ` +
        `(parcel ${report.parcelId}) written; it commits with the row's completion`,
    );
  }
}
