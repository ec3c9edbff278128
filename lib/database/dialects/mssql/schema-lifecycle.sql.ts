import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { qualified, quote } from './mssql-names.js';

/*
 * A schema of QueueBox's own, made and removed whole: the conformance check runs in one it
 * creates (the tables come from the schema steps) and drops it afterwards. Never used on the
 * schema of an application: the check refuses to start in a schema that exists already.
 */

/** @0 schema name (nvarchar(128)). Output: one row, `present` (bit). */
export const schemaExists = (): string =>
  /* sql */ `SELECT CAST(CASE WHEN SCHEMA_ID(@0) IS NULL THEN 0 ELSE 1 END AS bit) AS present;`;

/**
 * No parameters. QueueBox's two tables, then the schema: SQL Server drops no schema that still
 * holds objects. Each part is skipped when absent (a setup that failed half way).
 */
export const dropSchema = (
  t: ResolvedTableNames & { schema: string },
): string => /* sql */ `DROP TABLE IF EXISTS ${qualified(t, 'inbox')};
DROP TABLE IF EXISTS ${qualified(t, 'outbox')};
DROP SCHEMA IF EXISTS ${quote(t.schema)};`;
