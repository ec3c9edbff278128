import { DB_NOW } from './postgres-names.js';

/*
 * The database clock, read on its own: what QueueBox's statements compare leases and due times
 * with. A conformance run and a test's drain report times by it, never by the application's clock.
 */

/** No parameters. Output: `now` (timestamptz). */
export const databaseNow = (): string => /* sql */ `SELECT ${DB_NOW} AS now`;
