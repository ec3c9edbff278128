import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sample's own table, a migration of the same DataSource as QueueBox's. TypeORM runs the
 * migrations of a DataSource in the order of the timestamp that ends their names.
 */
export class CreateOrdersTable1767225600000 implements MigrationInterface {
  readonly name = 'CreateOrdersTable1767225600000';

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
