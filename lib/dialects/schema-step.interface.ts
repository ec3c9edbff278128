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
}
