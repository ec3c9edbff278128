import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { QueueBoxHealthModule } from '../lib/surfaces/health/index.js';
import { QueueBoxModule } from '../lib/index.js';
import { QueueBoxPostgresMigrations } from '../lib/surfaces/migrations/index.js';
import { BillingReceiverController } from './billing/billing-receiver.controller.js';
import { HealthController } from './health/health.controller.js';
import { CreateOrdersTable1767225600000 } from './orders/create-orders-table.migration.js';
import { OrdersController } from './orders/orders.controller.js';
import { OrdersService } from './orders/orders.service.js';
import { localUrl, type SampleConfig } from './sample-config.js';

/**
 * The orders service (the outbox side): `POST /orders` writes an order and two messages in one
 * transaction. QueueBox publishes one to `POST /billing-receiver` (the same application here,
 * another service in real life) and the other, signed, to the shipping service's HTTP intake.
 * Its tables are in the DataSource's default schema (`public`).
 */
@Module({})
export class OrdersAppModule {
  static forRoot(config: SampleConfig): DynamicModule {
    return {
      module: OrdersAppModule,
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
            billing: { type: 'http', url: `${localUrl(config, config.ordersPort)}/billing-receiver`, timeoutMs: 5_000 },
            // The shipping service's intake, source `orders`; `secret` signs every request (Standard Webhooks).
            shipping: {
              type: 'http',
              url: `${localUrl(config, config.shippingPort)}/inbox/orders`,
              secret: config.ordersSecret,
              timeoutMs: 5_000,
            },
          },
        }),
        // Serves GET /metrics, with Node's default metrics (registered once per process).
        PrometheusModule.register(),
        TerminusModule,
        QueueBoxHealthModule,
      ],
      controllers: [OrdersController, BillingReceiverController, HealthController],
      providers: [OrdersService],
    };
  }
}
