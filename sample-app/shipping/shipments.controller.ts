import { Controller, Get } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SHIPPING_DATA_SOURCE, SHIPPING_SCHEMA } from './shipping.constants.js';

/** A recorded shipment, as `GET /shipments` lists it. */
export interface Shipment {
  order_id: string;
  customer_id: string;
  parcel_id: string;
  report_message_id: string;
  recorded_at: Date;
}

@Controller('shipments')
export class ShipmentsController {
  constructor(@InjectDataSource(SHIPPING_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** The 20 most recent shipments the pull worker recorded. */
  @Get()
  list(): Promise<Shipment[]> {
    return this.dataSource.query(
      `SELECT order_id, customer_id, parcel_id, report_message_id, recorded_at FROM "${SHIPPING_SCHEMA}".shipments ORDER BY recorded_at DESC LIMIT 20`,
    );
  }
}
