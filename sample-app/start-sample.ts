import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OrdersAppModule } from './orders-app.module.js';
import type { SampleConfig } from './sample-config.js';
import { ShippingAppModule } from './shipping-app.module.js';

/** The sample's two services, in the order they start. */
export interface SampleApps {
  shipping: INestApplication;
  orders: INestApplication;
}

/** How the services are created. */
export interface SampleStartOptions {
  /** Signals that start each application's shutdown hooks (none: the caller closes them). */
  shutdownSignals?: readonly string[];
  /** Nest's log levels; all by default, `false` for none. */
  logger?: LogLevel[] | false;
}

/**
 * Starts the shipping service, then the orders service (which publishes to the shipping intake),
 * both listening on `config.host`. A failed start closes what had started and rethrows.
 */
export async function startSampleApps(
  config: SampleConfig,
  { shutdownSignals = [], logger }: SampleStartOptions = {},
): Promise<SampleApps> {
  const started: INestApplication[] = [];
  const create = async (
    module: Parameters<typeof NestFactory.create>[0],
    rawBody: boolean,
    port: number,
  ): Promise<INestApplication> => {
    // abortOnError: false, so that a failed start-up reaches the catch below.
    const app = await NestFactory.create(module, {
      abortOnError: false,
      rawBody,
      ...(logger !== undefined && { logger }),
    });
    started.push(app);
    // Without it, QueueBox's drain and TypeORM's close never run on SIGTERM.
    if (shutdownSignals.length > 0) app.enableShutdownHooks([...shutdownSignals]);
    await app.listen(port, config.host);
    return app;
  };
  try {
    // rawBody: true, because the warehouse stand-in verifies the relay's signature over the raw
    // request body (QueueBox's intake reads its own bodies).
    const shipping = await create(ShippingAppModule.forRoot(config), true, config.shippingPort);
    const orders = await create(OrdersAppModule.forRoot(config), false, config.ordersPort);
    return { shipping, orders };
  } catch (error) {
    for (const app of started.reverse()) await app.close().catch(() => undefined);
    throw error;
  }
}
