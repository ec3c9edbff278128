import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import type { ClaimComponent, QueueBoxTable } from '../database/sql-dialect.interface.js';

/**
 * The SQL text functions every dialect's mirrored *.sql.ts files export (lib/dialects/postgres/,
 * lib/dialects/mssql/): pure functions of validated table names, one statement each, whose
 * headers say what each binds, locks and fences. A dialect that lacks one does not compile.
 */
export interface DialectSql {
  databaseNow(): string;
  pendingWork(t: ResolvedTableNames): string;
  schemaExists(): string;
  /** QueueBox's two tables and their columns, as the start-up check reads them. */
  tableColumns(t: ResolvedTableNames): string;
  /** Only for a schema QueueBox made for itself (a conformance run's, a test's). */
  dropSchema(t: ResolvedTableNames & { schema: string }): string;

  insertOutboxOne(t: ResolvedTableNames): string;
  insertOutbox(t: ResolvedTableNames): string;
  claimOutbox(t: ResolvedTableNames): string;
  outboxBacklog(t: ResolvedTableNames): string;
  insertInbox(t: ResolvedTableNames): string;
  findInbox(t: ResolvedTableNames): string;
  claimInbox(t: ResolvedTableNames): string;
  inboxBacklog(t: ResolvedTableNames): string;
  claimPull(t: ResolvedTableNames): string;
  completeMany(t: ResolvedTableNames, kind: ClaimComponent): string;

  renew(t: ResolvedTableNames, table: QueueBoxTable): string;
  renewMany(t: ResolvedTableNames, table: QueueBoxTable): string;
  retry(t: ResolvedTableNames, table: QueueBoxTable): string;
  deadLetter(t: ResolvedTableNames, table: QueueBoxTable): string;
  reclaimExpired(t: ResolvedTableNames, table: QueueBoxTable): string;
  listDead(t: ResolvedTableNames, table: QueueBoxTable): string;
  replayDead(t: ResolvedTableNames, table: QueueBoxTable): string;
  inspectDead(t: ResolvedTableNames, table: QueueBoxTable): string;
  replayDeadMatching(t: ResolvedTableNames, table: QueueBoxTable): string;
  discardDead(t: ResolvedTableNames, table: QueueBoxTable): string;
  discardDeadMatching(t: ResolvedTableNames, table: QueueBoxTable): string;
  blockedKeys(t: ResolvedTableNames, table: QueueBoxTable): string;
  rowStates(t: ResolvedTableNames, table: QueueBoxTable): string;
  claimsAtRisk(t: ResolvedTableNames, table: QueueBoxTable): string;
  deadCounts(t: ResolvedTableNames, table: QueueBoxTable): string;
  purgeFinished(t: ResolvedTableNames, table: QueueBoxTable, state: 'done' | 'dead'): string;
}
