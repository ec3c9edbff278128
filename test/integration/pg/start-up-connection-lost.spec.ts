import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { retryConnectionLost } from '../../../lib/database/retry-connection-lost.js';
import { classifyPostgresError } from '../../../lib/database/dialects/postgres/postgres-errors.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';

const FAST = { firstDelayMs: 10, maxDelayMs: 50, withinMs: 5_000 };

/**
 * A replica restarted by its orchestrator while the database drops connections (a terminated
 * backend, a failover) used to exit at its first start-up check. The check is tried again while
 * its connection is lost, on the errors the server and the driver really give for it.
 */
describe('a start-up check whose connection is lost', () => {
  let dataSource: DataSource;
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };

  beforeAll(async () => {
    dataSource = await openDataSource(await createTestSchema(), 2);
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('is tried again when its backend is terminated (57P01), with one warning, and then succeeds', async () => {
    warnings.length = 0;
    let tries = 0;
    const result = await retryConnectionLost(
      'the check of the tables',
      async () => {
        tries += 1;
        // The backend ends itself: the server's own "terminating connection due to administrator command".
        if (tries <= 2) await dataSource.query('SELECT pg_terminate_backend(pg_backend_pid())');
        return dataSource.query<{ one: number }[]>('SELECT 1 AS one');
      },
      classifyPostgresError,
      logger,
      FAST,
    );
    expect(result).toEqual([{ one: 1 }]);
    expect(tries).toBe(3);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the check of the tables');
  });

  it('is not tried again for any other error', async () => {
    let tries = 0;
    const failing = retryConnectionLost(
      'the check of the tables',
      async () => {
        tries += 1;
        return dataSource.query('SELECT * FROM no_such_table_here');
      },
      classifyPostgresError,
      logger,
      FAST,
    );
    await expect(failing).rejects.toMatchObject({ driverError: { code: '42P01' } });
    expect(tries).toBe(1);
  });

  it('fails start-up with the last error once the database stays away past the bound', async () => {
    let tries = 0;
    const failing = retryConnectionLost(
      'the check of the tables',
      async () => {
        tries += 1;
        return dataSource.query('SELECT pg_terminate_backend(pg_backend_pid())');
      },
      classifyPostgresError,
      logger,
      { firstDelayMs: 10, maxDelayMs: 20, withinMs: 200 },
    );
    await expect(failing).rejects.toBeDefined();
    expect(tries).toBeGreaterThan(1);
  });
});
