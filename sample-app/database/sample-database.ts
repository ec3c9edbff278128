import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from '../../tools/embedded-postgres.js';

/** The PostgreSQL the sample runs on, and how to let it go. */
export interface SampleDatabase {
  url: string;
  /** A one-line description for the start-up log; never contains a password. */
  description: string;
  /** Stops the embedded server and deletes its files; does nothing for `DATABASE_URL`. */
  stop(): Promise<void>;
}

const DATABASE_NAME = 'queuebox_sample';

const logger = new Logger('SampleDatabase');

/** The server named by `url`, or, without one, an embedded PostgreSQL in a temporary directory. */
export async function startDatabase(url: string | undefined): Promise<SampleDatabase> {
  if (url) return { url, description: 'PostgreSQL from DATABASE_URL', stop: async () => undefined };
  return startEmbedded();
}

async function startEmbedded(): Promise<SampleDatabase> {
  logger.log('DATABASE_URL is not set: starting an embedded PostgreSQL');
  const server = await startEmbeddedPostgres({
    name: 'queuebox-sample-pg',
    database: DATABASE_NAME,
    password: randomBytes(16).toString('hex'),
    onError: (error: unknown) => logger.error(`embedded PostgreSQL: ${String(error)}`),
  });
  return {
    url: server.url,
    description: `embedded PostgreSQL on 127.0.0.1:${server.port}`,
    async stop() {
      await server.stop();
      logger.log('embedded PostgreSQL stopped');
    },
  };
}
