/**
 * The names QueueBox's two tables resolved to at start-up (validated, unquoted): the schema, when
 * one is configured, and each table's name.
 */
export interface ResolvedTableNames {
  schema?: string;
  outbox: string;
  inbox: string;
}
