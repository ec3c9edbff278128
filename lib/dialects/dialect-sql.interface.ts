import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import type { ClaimKind, ClaimTable } from '../database/sql-dialect.interface.js';

/**
 * The SQL text functions every dialect's mirrored *.sql.ts files export (lib/dialects/postgres/,
 * lib/dialects/mssql/): pure functions of validated table names, one statement each, whose
 * headers say what each binds, locks and fences. A dialect that lacks one does not compile.
 */
export interface DialectSql {
  databaseNow(): string;
  pendingWork(t: ResolvedTableNames): string;
  schemaExists(): string;
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
  completeMany(t: ResolvedTableNames, kind: ClaimKind): string;

  renew(t: ResolvedTableNames, table: ClaimTable): string;
  renewMany(t: ResolvedTableNames, table: ClaimTable): string;
  retry(t: ResolvedTableNames, table: ClaimTable): string;
  deadLetter(t: ResolvedTableNames, table: ClaimTable): string;
  reclaimExpired(t: ResolvedTableNames, table: ClaimTable): string;
  listDead(t: ResolvedTableNames, table: ClaimTable): string;
  replayDead(t: ResolvedTableNames, table: ClaimTable): string;
  inspectDead(t: ResolvedTableNames, table: ClaimTable): string;
  replayDeadMatching(t: ResolvedTableNames, table: ClaimTable): string;
  discardDead(t: ResolvedTableNames, table: ClaimTable): string;
  discardDeadMatching(t: ResolvedTableNames, table: ClaimTable): string;
  blockedKeys(t: ResolvedTableNames, table: ClaimTable): string;
  rowStates(t: ResolvedTableNames, table: ClaimTable): string;
  claimsAtRisk(t: ResolvedTableNames, table: ClaimTable): string;
  deadCounts(t: ResolvedTableNames, table: ClaimTable): string;
  purgeFinished(t: ResolvedTableNames, table: ClaimTable, state: 'done' | 'dead'): string;
}
