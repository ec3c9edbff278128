import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { startDatabase, type SampleDatabase } from './database/sample-database.js';
import { readPort } from './sample-config.js';

/** The signals that shut the sample down: Nest closes first, then the database stops. */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const logger = new Logger('SampleApp');

async function bootstrap(): Promise<void> {
  const port = readPort(process.env.PORT);
  const database = await startDatabase(process.env.DATABASE_URL);
  let app: INestApplication | undefined;
  try {
    // abortOnError: false, so that a failed start-up reaches the catch below and stops the database.
    app = await NestFactory.create(AppModule.forRoot({ databaseUrl: database.url, port }), { abortOnError: false });
    // Without it, QueueBox's drain and TypeORM's close never run on SIGTERM.
    app.enableShutdownHooks([...SHUTDOWN_SIGNALS]);
    await app.listen(port);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await database.stop();
    throw error;
  }
  stopDatabaseAfterNest(app, database);

  const url = `http://localhost:${port}`;
  logger.log(`QueueBox sample listening on ${url} (${database.description})`);
  logger.log(`Place an order: curl -X POST ${url}/orders -H 'content-type: application/json' -d '{"customerId":"c1","amount":12}'`);
  logger.log(`Then: curl ${url}/metrics | grep queuebox_   and   curl ${url}/health   (Ctrl-C stops)`);
}

/**
 * On a shutdown signal, waits for Nest's own shutdown (started by `enableShutdownHooks`: the
 * outbox drains, TypeORM closes its pool), then stops the database and exits.
 *
 * NOTE: Nest re-raises the signal once it has closed. This listener stays registered and ignores
 * it, so the process lives until the database has stopped.
 */
function stopDatabaseAfterNest(app: INestApplication, database: SampleDatabase): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: shutting down`);
    app
      .close() // joins the shutdown that Nest's signal hook has already started
      .then(() => database.stop())
      .then(
        () => {
          logger.log('stopped cleanly');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error('shutdown failed', stackOf(error));
          process.exit(1);
        },
      );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
}

function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

bootstrap().catch((error: unknown) => {
  logger.error('the sample failed to start', stackOf(error));
  process.exit(1);
});
