/**
 * `queuebox/migrations`: TypeORM migration classes for QueueBox's tables.
 * @packageDocumentation
 */
import { createQueueBoxMigrations } from './create-queuebox-migrations.js';

export { createQueueBoxMigrations } from './create-queuebox-migrations.js';
export type { QueueBoxMigrationClass, QueueBoxMigrationOptions } from './create-queuebox-migrations.js';

/** The migrations for the default table names on PostgreSQL. @publicApi */
export const QueueBoxPostgresMigrations = createQueueBoxMigrations({ type: 'postgres' });

/** The migrations for the default table names on SQL Server. @publicApi */
export const QueueBoxSqlServerMigrations = createQueueBoxMigrations({ type: 'mssql' });
