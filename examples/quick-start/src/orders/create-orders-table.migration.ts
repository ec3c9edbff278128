import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOrdersTable1767225600000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE orders (id uuid PRIMARY KEY, customer_id text NOT NULL, amount integer NOT NULL)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE orders`);
  }
}
