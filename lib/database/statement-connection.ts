/**
 * What running one statement needs of a connection. TypeORM's query runner has it; so has
 * PostgreSQL's pooled connection for autocommit statements (`PooledStatementConnection`), which
 * leaves TypeORM's runner out of the hot path.
 */
export interface StatementConnection {
  readonly isReleased: boolean;
  readonly isTransactionActive: boolean;
  /** The driver's connection, taken from the pool on the first call. */
  connect(): Promise<unknown>;
  /** Gives the connection back to the pool; the connection runs nothing more. */
  release(): Promise<void>;
  /** Runs `sql` unprepared; `records` holds the rows of its result set. */
  query(sql: string, params: unknown[], structured: true): Promise<{ records?: unknown[] }>;
}
