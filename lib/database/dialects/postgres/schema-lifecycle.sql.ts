import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { quote } from './postgres-names.js';

/*
 * A schema of QueueBox's own, made and removed whole: the conformance check runs in one it
 * creates (the tables come from the schema steps) and drops it afterwards. Never used on the
 * schema of an application: the check refuses to start in a schema that exists already.
 */

/** $1 schema name. Output: one row, `present` (boolean). */
export const schemaExists = (): string =>
  /* sql */ `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS present`;

/** No parameters. Drops the schema with everything in it (the tables, their indexes). */
export const dropSchema = (t: ResolvedTableNames & { schema: string }): string =>
  /* sql */ `DROP SCHEMA IF EXISTS ${quote(t.schema)} CASCADE`;
