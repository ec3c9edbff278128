import { DB_NOW, timeOut } from './mssql-names.js';

/*
 * The database clock, read on its own: what QueueBox's statements compare leases and due times
 * with. A conformance run and a test's drain report times by it, never by the application's clock.
 */

/** No parameters. Output: `now` (datetimeoffset: read as the same instant whatever the driver's time zone). */
export const databaseNow = (): string => /* sql */ `SELECT ${timeOut(DB_NOW)} AS now;`;
