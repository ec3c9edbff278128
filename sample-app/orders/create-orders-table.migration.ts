import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sample's own table, next to QueueBox's migrations in the same DataSource. The timestamp in
 * the name orders it after QueueBox's first migration.
 */
export class CreateOrdersTable1764547200000 implements MigrationInterface {
  readonly name = 'CreateOrdersTable1764547200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE orders (
        id          uuid          PRIMARY KEY DEFAULT gen_random_uuid(),
        customer_id text          NOT NULL,
        amount      numeric(14,2) NOT NULL CHECK (amount > 0),
        created_at  timestamptz   NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE orders');
  }
}
