import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { QueueBoxHealthModule } from '../lib/health/index.js';
import { QueueBoxModule } from '../lib/index.js';
import { QueueBoxPostgresMigrations } from '../lib/migrations/index.js';
import { BillingReceiverController } from './billing/billing-receiver.controller.js';
import { HealthController } from './health/health.controller.js';
import { CreateOrdersTable1767225600000 } from './orders/create-orders-table.migration.js';
import { OrdersController } from './orders/orders.controller.js';
import { OrdersService } from './orders/orders.service.js';
import type { SampleConfig } from './sample-config.js';

/**
 * The sample service: `POST /orders` writes an order and its billing message in one
 * transaction, QueueBox publishes the message to `POST /billing-receiver` (the same process
 * here, another service in real life), `GET /metrics` and `GET /health` show how it goes.
 */
@Module({})
export class AppModule {
  static forRoot(config: SampleConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.databaseUrl,
          // QueueBox's tables come from its migrations, next to the application's own; never synchronize.
          migrations: [...QueueBoxPostgresMigrations, CreateOrdersTable1767225600000],
          migrationsRun: true,
          synchronize: false,
        }),
        QueueBoxModule.forRoot({
          destinations: {
            billing: { type: 'http', url: `http://127.0.0.1:${config.port}/billing-receiver`, timeoutMs: 5_000 },
          },
        }),
        PrometheusModule.register(),
        TerminusModule,
        QueueBoxHealthModule,
      ],
      controllers: [OrdersController, BillingReceiverController, HealthController],
      providers: [OrdersService],
    };
  }
}
