import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SHIPPING_SCHEMA } from './shipping.constants.js';

/**
 * The shipping service's own table, in its schema, a migration of the same DataSource as
 * QueueBox's. Its timestamp orders it after QueueBox's migrations, which create the schema.
 */
export class CreateShipmentsTable1767312000000 implements MigrationInterface {
  readonly name = 'CreateShipmentsTable1767312000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE "${SHIPPING_SCHEMA}".shipments (
        order_id          uuid        PRIMARY KEY,
        customer_id       text        NOT NULL,
        parcel_id         text        NOT NULL,
        report_message_id text        NOT NULL UNIQUE,
        recorded_at       timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${SHIPPING_SCHEMA}".shipments`);
  }
}
