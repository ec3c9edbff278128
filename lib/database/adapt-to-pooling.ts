import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { InvalidQueueBoxOptionsError } from '../shared/errors/invalid-queuebox-options.error.js';
import { pooledPerTransaction, preparedStatementsNotKept } from '../shared/queuebox.messages.js';
import { retryConnectionLost } from './retry-connection-lost.js';
import type { SqlDialect } from './sql-dialect.interface.js';

/** What the options ask of the connections: the `preparedStatements` option, and whether LISTEN would run on the pool's. */
export interface PoolingConcerns {
  preparedStatements?: boolean;
  listensOnPool: boolean;
}

/**
 * At start-up, before any statement of QueueBox's runs: finds out whether the DataSource's
 * connections are pooled per transaction (PgBouncer in transaction mode) and adapts to it, so
 * that QueueBox works behind such a pooler with its defaults, and says how in one log line.
 *
 * - Prepared statements that do not last: the hot statements run unnamed, unless
 *   `preparedStatements` is `true`, which then fails start-up (what was asked cannot work).
 * - LISTEN that does not last: the wake-up hub reads `dialect.pooling` and listens on
 *   `notify.listenUrl`, or not at all (one warning; the loops poll).
 *
 * The probe is skipped where neither question matters: statements unnamed by choice, and no
 * LISTEN on the pool's connections.
 */
export async function adaptToPooling(
  dialect: SqlDialect,
  dataSource: DataSource,
  { preparedStatements, listensOnPool }: PoolingConcerns,
): Promise<void> {
  if (preparedStatements === false && !listensOnPool) return;
  // Not connected yet: the start-up check of the tables refuses it, or waits for it
  // (`startup.waitForMigrations`); a pooler found later is adapted to at its first missing statement.
  if (!dataSource.isInitialized) return;
  const logger = new Logger('QueueBox');
  const pooling = await retryConnectionLost(
    'the connection pooling probe',
    () => dialect.probePooling(dataSource),
    (error) => dialect.classifyError(error),
    logger,
  );
  if (!pooling.sessionPerTransaction) return;
  const unnamed = !pooling.preparedStatementsKept;
  if (unnamed && preparedStatements === true)
    throw new InvalidQueueBoxOptionsError('preparedStatements', preparedStatementsNotKept());
  if (unnamed) dialect.stopPreparing();
  logger.log(pooledPerTransaction(unnamed && preparedStatements !== false));
}
