import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { QueueBoxHealthModule } from '../lib/surfaces/health/index.js';
import { QueueBoxModule } from '../lib/index.js';
import { createQueueBoxMigrations } from '../lib/surfaces/migrations/index.js';
import { HealthController } from './health/health.controller.js';
import { localUrl, type SampleConfig } from './sample-config.js';
import { CreateShipmentsTable1767312000000 } from './shipping/create-shipments-table.migration.js';
import { IntakeLogMiddleware } from './shipping/intake-log.middleware.js';
import { OrderToWarehouseTransform } from './shipping/order-to-warehouse.transform.js';
import { ShipmentsController } from './shipping/shipments.controller.js';
import { ShipmentsWorker } from './shipping/shipments.worker.js';
import {
  ORDERS_SOURCE,
  SHIPPING_DATA_SOURCE,
  SHIPPING_SCHEMA,
  WAREHOUSE_SOURCE,
} from './shipping/shipping.constants.js';
import { WAREHOUSE_SETTINGS, WarehouseStandInController } from './warehouse/warehouse-stand-in.controller.js';

/**
 * The shipping service (the inbox side), a second Nest application on the same database with
 * its own DataSource and its own schema:
 *
 * - its HTTP intake (`POST /inbox/:source`) stores signed deliveries of two sources;
 * - the relay forwards source `orders` to the `warehouse` destination (the warehouse stand-in);
 * - the `ShipmentsWorker` pull worker consumes source `warehouse` and records shipments.
 *
 * Create it with `rawBody: true`: the warehouse stand-in verifies signatures over the raw body.
 */
@Module({})
export class ShippingAppModule implements NestModule {
  static forRoot(config: SampleConfig): DynamicModule {
    const baseUrl = localUrl(config, config.shippingPort);
    return {
      module: ShippingAppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          // A name of its own: @nestjs/typeorm tracks DataSource names per process, and the orders
          // application, in the same process, has the default one.
          name: SHIPPING_DATA_SOURCE,
          useFactory: (): DataSourceOptions => ({
            type: 'postgres',
            url: config.databaseUrl,
            schema: SHIPPING_SCHEMA,
            // The same schema as QueueBoxModule's below; then the service's own migration.
            migrations: [
              ...createQueueBoxMigrations({ type: 'postgres', schema: SHIPPING_SCHEMA }),
              CreateShipmentsTable1767312000000,
            ],
            migrationsRun: true,
            synchronize: false,
          }),
          // TypeORM keeps its `migrations` table in the DataSource's schema, so the schema must
          // exist before the first migration runs.
          dataSourceFactory: async (options) => {
            await createSchemaIfMissing(options!, SHIPPING_SCHEMA);
            return new DataSource(options!);
          },
        }),
        QueueBoxModule.forRoot({
          // The extra that picks the DataSource by its @nestjs/typeorm name.
          dataSource: SHIPPING_DATA_SOURCE,
          schema: SHIPPING_SCHEMA,
          // Mounts the intake at POST /inbox/:source.
          intake: { path: 'inbox' },
          destinations: {
            // Signed: the warehouse (stand-in) answers only requests that come from this relay.
            warehouse: {
              type: 'http',
              url: `${baseUrl}/warehouse`,
              timeoutMs: 5_000,
              secret: config.warehouseRequestSecret,
            },
          },
          inbox: {
            // Only these sources are accepted, and each must sign its deliveries with its secret.
            sources: {
              [ORDERS_SOURCE]: { secret: config.ordersSecret },
              [WAREHOUSE_SOURCE]: { secret: config.warehouseSecret },
            },
            // A row is either relayed or pulled: `orders` is relayed here, `warehouse` is pulled by ShipmentsWorker.
            relay: {
              routes: { [ORDERS_SOURCE]: { destination: 'warehouse', transform: OrderToWarehouseTransform } },
            },
          },
        }),
        // One process, one prom-client registry: the orders application already collects Node's
        // default metrics, and both applications' GET /metrics show the same registry.
        PrometheusModule.register({ defaultMetrics: { enabled: false } }),
        TerminusModule,
        QueueBoxHealthModule,
      ],
      controllers: [ShipmentsController, WarehouseStandInController, HealthController],
      providers: [
        OrderToWarehouseTransform,
        ShipmentsWorker,
        {
          provide: WAREHOUSE_SETTINGS,
          useValue: {
            reportUrl: `${baseUrl}/inbox/${WAREHOUSE_SOURCE}`,
            reportSecret: config.warehouseSecret,
            requestSecret: config.warehouseRequestSecret,
          },
        },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(IntakeLogMiddleware).forRoutes({ path: 'inbox/:source', method: RequestMethod.POST });
  }
}

/** Runs `CREATE SCHEMA IF NOT EXISTS` on a short-lived connection of its own. */
async function createSchemaIfMissing(options: DataSourceOptions, schema: string): Promise<void> {
  const bootstrap = new DataSource({
    ...options,
    schema: undefined,
    migrations: [],
    migrationsRun: false,
    extra: { max: 1 },
  } as DataSourceOptions);
  await bootstrap.initialize();
  try {
    await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await bootstrap.destroy();
  }
}
