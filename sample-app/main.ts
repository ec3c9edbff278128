import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startDatabase, type SampleDatabase } from './database/sample-database.js';
import { FIRST_ORDER, placeFirstOrder } from './first-order.js';
import { localUrl, readSampleConfig, type SampleConfig } from './sample-config.js';
import { SHIPPING_SCHEMA } from './shipping/shipping.constants.js';
import { startSampleApps, type SampleApps } from './start-sample.js';

/** The signals that shut the sample down: both applications close first, then the database stops. */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const logger = new Logger('SampleApp');

/** `npm run sample -- --once`: exit once the first order has gone through (for scripts and CI). */
const ONCE = '--once';

async function bootstrap(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.some((arg) => arg !== ONCE))
    throw new Error(`unknown argument ${args.find((arg) => arg !== ONCE)}; the sample takes only ${ONCE}`);
  // Read the settings first: a bad PORT fails before any database starts.
  const settings = readSampleConfig(process.env);
  const database = await startDatabase(process.env.DATABASE_URL);
  const config: SampleConfig = { ...settings, databaseUrl: database.url };
  let apps: SampleApps;
  try {
    apps = await startSampleApps(config, { shutdownSignals: SHUTDOWN_SIGNALS });
  } catch (error) {
    await database.stop();
    throw error;
  }
  const stop = stopDatabaseAfterNest(apps, database);
  logStartup(config, database);
  try {
    await placeFirstOrder(config, logger);
  } catch (error) {
    logger.error('the first order did not go through', stackOf(error));
    stop('the first order failed', 1);
    return;
  }
  if (args.includes(ONCE)) stop(`the first order went through (${ONCE})`);
  else logHint(config);
}

function logStartup(config: SampleConfig, database: SampleDatabase): void {
  const orders = localUrl(config, config.ordersPort);
  const shipping = localUrl(config, config.shippingPort);
  logger.log(`QueueBox sample on ${database.description}`);
  logger.log(`orders service   ${orders}  (tables in the default schema: orders, QueueBox's outbox)`);
  logger.log(
    `shipping service ${shipping}  (tables in schema "${SHIPPING_SCHEMA}": QueueBox's inbox and outbox, shipments)`,
  );
  if (config.generatedSecrets.length > 0) {
    logger.log(
      `Standard Webhooks secrets generated for this run (not set in the environment): ${config.generatedSecrets.join(', ')}`,
    );
  }
  logger.log(
    [
      'What one order goes through:',
      `  1. POST ${orders}/orders writes the order and two outbox messages in one transaction (outbox)`,
      `  2a. the orders outbox POSTs one to ${orders}/billing-receiver, which logs its X-Message-Id`,
      `  2b. and the other, signed (Standard Webhooks), to ${shipping}/inbox/orders (HTTP intake, inbox source "orders")`,
      `  3. the shipping relay forwards inbox source "orders" to the warehouse destination, ${shipping}/warehouse (relay)`,
      `  4. the warehouse stand-in reports the packed parcel, signed, to ${shipping}/inbox/warehouse (inbox source "warehouse")`,
      '  5. the ShipmentsWorker pull worker records a shipments row and completes the inbox row in one transaction (pull worker)',
    ].join('\n'),
  );
}

/** Once the first order has gone through: how to place another and where to look. */
function logHint(config: SampleConfig): void {
  const orders = localUrl(config, config.ordersPort);
  const shipping = localUrl(config, config.shippingPort);
  logger.log(
    `Place another order: curl -X POST ${orders}/orders -H 'content-type: application/json' -d '${JSON.stringify(FIRST_ORDER)}'`,
  );
  logger.log(
    `Then: curl ${shipping}/shipments   curl ${orders}/metrics | grep queuebox_   curl ${orders}/health   curl ${shipping}/health   (Ctrl-C stops)`,
  );
}

/**
 * On a shutdown signal (or when the sample is done, see the returned function), waits for both
 * applications' own shutdown (started by `enableShutdownHooks`: the outbox poller, the relay and
 * the pull worker drain, TypeORM closes its pools), then stops the database and exits.
 *
 * NOTE: Nest re-raises the signal once an application has closed. This listener stays registered
 * and ignores it, so the process lives until the database has stopped.
 */
function stopDatabaseAfterNest(
  apps: SampleApps,
  database: SampleDatabase,
): (reason: string, exitCode?: number) => void {
  let stopping = false;
  const stop = (reason: string, exitCode = 0): void => {
    if (stopping) return;
    stopping = true;
    logger.log(`${reason}: shutting down`);
    // close() joins the shutdown that Nest's signal hook may have started already.
    Promise.all([apps.orders.close(), apps.shipping.close()])
      .then(() => database.stop())
      .then(
        () => {
          logger.log('stopped cleanly');
          process.exit(exitCode);
        },
        (error: unknown) => {
          logger.error('shutdown failed', stackOf(error));
          process.exit(1);
        },
      );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, (received: NodeJS.Signals) => stop(`${received} received`));
  return stop;
}

function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

bootstrap().catch((error: unknown) => {
  logger.error('the sample failed to start', stackOf(error));
  process.exit(1);
});
