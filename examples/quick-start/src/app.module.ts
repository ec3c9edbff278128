import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { QueueBoxModule } from 'queuebox';
import { QueueBoxPostgresMigrations } from 'queuebox/migrations';
import { BillingModule } from './billing/billing.module.js';
import { CreateOrdersTable1767225600000 } from './orders/create-orders-table.migration.js';
import { OrdersModule } from './orders/orders.module.js';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      // QueueBox's tables come from its migrations, next to your own; never synchronize.
      migrations: [...QueueBoxPostgresMigrations, CreateOrdersTable1767225600000],
      migrationsRun: true,
    }),
    // Global: every feature module can inject OutboxService without importing QueueBoxModule.
    QueueBoxModule.forRoot({
      destinations: {
        billing: { type: 'http', url: process.env.BILLING_URL ?? 'http://127.0.0.1:3000/billing/hooks' },
      },
    }),
    PrometheusModule.register(), // GET /metrics, with the queuebox_ metrics
    OrdersModule,
    BillingModule,
  ],
})
export class AppModule {}
