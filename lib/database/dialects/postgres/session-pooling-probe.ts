import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { type ConnectionPooling, SESSION_PER_CONNECTION } from '../../connection-pooling.js';
import type { DriverRow } from '../../statement-results.js';
import type { StatementDeadline } from '../dialect-profile.interface.js';
import { withinDeadline } from '../statement-deadline.js';
import { classifyPostgresError } from './postgres-errors.js';
import { executeOnPostgres } from './postgres-executor.js';
import * as sql from './session-probe.sql.js';

/** Rounds of interleaved transactions; each alternates the order of the commits. */
const ROUNDS = 4;

interface PooledDriver {
  master?: { options?: { max?: number } };
}

/**
 * Finds out whether the connections keep their server session across transactions, and whether a
 * named prepared statement survives a move.
 *
 * A prepares a statement reading its backend's pid; then, in rounds, A and B each open and commit a
 * transaction, and A runs its statement again. Direct or session pooling: same pid, statement known.
 * Transaction pooling: A gets the last (LIFO, PgBouncer's default) or first (FIFO) released backend;
 * alternating the commit order moves A either way within two rounds. A moved prepared statement
 * fails with 26000 (or 42P05) unless the pooler carries it (PgBouncer 1.21+ `max_prepared_statements`).
 *
 * WHY not LISTEN then `pg_listening_channels()`: a quiet LIFO pooler hands the same backend back
 * (PgBouncer 1.18). A pool of fewer than two connections cannot be probed: sessions are assumed to last.
 */
export async function probePostgresPooling(
  dataSource: DataSource,
  deadline: StatementDeadline,
): Promise<ConnectionPooling> {
  const poolSize = (dataSource.driver as unknown as PooledDriver).master?.options?.max ?? 10;
  if (poolSize < 2) return SESSION_PER_CONNECTION;
  const a = dataSource.createQueryRunner();
  const b = dataSource.createQueryRunner();
  const name = `queuebox_probe_${randomUUID().replaceAll('-', '')}`;
  const run = (runner: QueryRunner, text: string, statementName?: string): Promise<readonly DriverRow[]> =>
    withinDeadline(runner, deadline.statementTimeoutMs, deadline.discard, () =>
      executeOnPostgres(runner, { sql: text, params: [], name: statementName, decode: (rows) => rows }),
    );
  const pid = async (runner: QueryRunner, statementName?: string): Promise<number> =>
    Number((await run(runner, sql.backendPid(), statementName))[0]?.pid);
  try {
    const preparedOn = await pid(a, name);
    let moved = false;
    for (let round = 0; round < ROUNDS; round += 1) {
      await run(a, sql.begin());
      const inTransaction = await pid(a);
      await run(b, sql.begin());
      await pid(b);
      for (const runner of round % 2 === 0 ? [a, b] : [b, a]) await run(runner, sql.commit());
      let after: number;
      try {
        after = await pid(a, name);
      } catch (error) {
        if (classifyPostgresError(error) !== 'prepared-statement-lost') throw error;
        return { sessionPerTransaction: true, preparedStatementsKept: false };
      }
      moved ||= inTransaction !== preparedOn || after !== inTransaction;
      // The statement ran on a backend that never prepared it: the pooler carries prepared statements over.
      if (after !== preparedOn) return { sessionPerTransaction: true, preparedStatementsKept: true };
    }
    // Moved, but the statement always came back to its own backend: whether the pooler carries
    // prepared statements is unknown, and unnamed statements work either way.
    return moved ? { sessionPerTransaction: true, preparedStatementsKept: false } : SESSION_PER_CONNECTION;
  } finally {
    // Through a pooler the statement may live on another backend by now: a failed drop is no news.
    await run(a, sql.deallocate(name)).catch(() => undefined);
    await Promise.allSettled([a.release(), b.release()]);
  }
}
