import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import type { DialectSql } from './dialect-sql.interface.js';
import type { ClaimComponent, QueueBoxTable } from '../database/sql-dialect.interface.js';

/*
 * The names of the statements the catalog sends, as types: its text table is a record over
 * these keys, built once per table configuration from the dialect's SQL functions, so that a
 * statement without a text is a compile error rather than an `undefined` sent to the driver.
 */

/** Statements each table has one of, keyed `<name>:<table>`. */
export type TableStatement =
  | 'renew'
  | 'renewMany'
  | 'retry'
  | 'deadLetter'
  | 'reclaimExpired'
  | 'listDead'
  | 'replayDead'
  | 'inspectDead'
  | 'replayDeadMatching'
  | 'discardDead'
  | 'discardDeadMatching'
  | 'blockedKeys'
  | 'rowStates'
  | 'claimsAtRisk'
  | 'deadCounts'
  | `purge:${'done' | 'dead'}`;

/** Every statement key of the catalog's text table. */
export type StatementKey =
  | 'databaseNow'
  | 'pendingWork'
  | 'schemaExists'
  | 'tableColumns'
  | 'insertOutbox'
  | 'insertOutboxOne'
  | 'claimOutbox'
  | 'outboxBacklog'
  | 'insertInbox'
  | 'findInbox'
  | 'claimInbox'
  | 'inboxBacklog'
  | 'claimPull'
  | `completeMany:${ClaimComponent}`
  | `${TableStatement}:${QueueBoxTable}`;

/** One dialect's SQL texts for one table configuration: a text per statement key. */
export type StatementTexts = Readonly<Record<StatementKey, string>>;

const CLAIM_TABLES: readonly QueueBoxTable[] = ['outbox', 'inbox'];
const CLAIM_COMPONENTS: readonly ClaimComponent[] = ['outbox', 'relay', 'pull'];

/** The texts of `build(kind)` for the three claimers, keyed `<name>:<kind>`. */
export function perClaimComponent<Name extends string>(name: Name, build: (kind: ClaimComponent) => string): Record<`${Name}:${ClaimComponent}`, string> {
  return Object.fromEntries(CLAIM_COMPONENTS.map((kind) => [`${name}:${kind}`, build(kind)])) as Record<`${Name}:${ClaimComponent}`, string>;
}

/** The texts of `build(table)` for both tables, keyed `<name>:<table>`. */
function perTable(build: (table: QueueBoxTable) => Readonly<Record<TableStatement, string>>): Record<`${TableStatement}:${QueueBoxTable}`, string> {
  const entries = CLAIM_TABLES.flatMap((table) => Object.entries(build(table)).map(([name, text]) => [`${name}:${table}`, text]));
  return Object.fromEntries(entries) as Record<`${TableStatement}:${QueueBoxTable}`, string>;
}

/** Every statement text of `sql` for `t`. */
export const statementTexts = (sql: DialectSql, t: ResolvedTableNames): StatementTexts => ({
  databaseNow: sql.databaseNow(),
  pendingWork: sql.pendingWork(t),
  schemaExists: sql.schemaExists(),
  tableColumns: sql.tableColumns(t),
  insertOutbox: sql.insertOutbox(t),
  insertOutboxOne: sql.insertOutboxOne(t),
  claimOutbox: sql.claimOutbox(t),
  outboxBacklog: sql.outboxBacklog(t),
  insertInbox: sql.insertInbox(t),
  findInbox: sql.findInbox(t),
  claimInbox: sql.claimInbox(t),
  inboxBacklog: sql.inboxBacklog(t),
  claimPull: sql.claimPull(t),
  ...perClaimComponent('completeMany', (kind) => sql.completeMany(t, kind)),
  ...perTable((table) => ({
    renew: sql.renew(t, table),
    renewMany: sql.renewMany(t, table),
    retry: sql.retry(t, table),
    deadLetter: sql.deadLetter(t, table),
    reclaimExpired: sql.reclaimExpired(t, table),
    listDead: sql.listDead(t, table),
    replayDead: sql.replayDead(t, table),
    inspectDead: sql.inspectDead(t, table),
    replayDeadMatching: sql.replayDeadMatching(t, table),
    discardDead: sql.discardDead(t, table),
    discardDeadMatching: sql.discardDeadMatching(t, table),
    blockedKeys: sql.blockedKeys(t, table),
    rowStates: sql.rowStates(t, table),
    claimsAtRisk: sql.claimsAtRisk(t, table),
    deadCounts: sql.deadCounts(t, table),
    'purge:done': sql.purgeFinished(t, table, 'done'),
    'purge:dead': sql.purgeFinished(t, table, 'dead'),
  })),
});
