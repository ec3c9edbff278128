import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown at bootstrap when QueueBox's tables are missing, or lack columns of this version's
 * schema: its migrations have not run on the application's database (or QueueBox's `schema` and
 * `tables` name other tables than the migrations made). `databaseType` is the DataSource's type,
 * `migrations` lists the migration classes whose work is missing, `problems` what the check found; the message names what to add to the
 * DataSource's `migrations`. Nothing was started. `startup.waitForMigrations` waits for them
 * instead.
 * @publicApi
 */
export class MissingMigrationsError extends QueueBoxError {
  constructor(
    readonly databaseType: string,
    readonly migrations: readonly string[],
    readonly problems: readonly string[],
    message: string,
  ) {
    super('MISSING_MIGRATIONS', message);
  }
}
