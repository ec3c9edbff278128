import type { QueueBoxTable } from '../../shared/interfaces/claim.interface.js';

/**
 * One version of QueueBox's schema on one database: the DDL that creates it and the DDL that
 * undoes it, run by a TypeORM migration class named `QueueBox<name>[<tables>]<version>`.
 */
export interface SchemaStep {
  name: string;
  /** The migration's timestamp: TypeORM orders migrations by it. */
  version: number;
  up: readonly string[];
  down: readonly string[];
  /**
   * The columns of the current schema version this step brings, by table (a column a later step
   * renames belongs to that later step). The start-up check expects every step's columns, and
   * names the step of each one that is missing.
   */
  columns: Readonly<Partial<Record<QueueBoxTable, readonly string[]>>>;
}
