/*
 * Messages of the SQL Server dialect: its start-up probe and its check of the DataSource.
 */

export const mssqlCompatibilityTooLow = (level: number, minimum: number): string =>
  `its compatibility level is ${Number.isFinite(level) ? level : 'unknown'}, and QueueBox needs ${minimum} or higher (SQL Server 2016: OPENJSON); raise it with ALTER DATABASE … SET COMPATIBILITY_LEVEL = ${minimum}`;

export const mssqlDatabaseMode = (level: number, readCommittedSnapshot: boolean): string =>
  `SQL Server database: compatibility level ${level}, READ_COMMITTED_SNAPSHOT ${readCommittedSnapshot ? 'on' : 'off (claims and readers wait on row locks; on is recommended)'}`;

export const mssqlRequestTimeoutTooShort = (timeout: number, minimum: number): string =>
  `The SQL Server DataSource's requestTimeout is ${timeout} ms; QueueBox needs at least ${minimum} ms (or 0, no timeout): a claim may wait up to 10 s for its claim lock, and a request cancelled by the driver leaves its connection to the pool without a reset.`;
