import type { ClaimComponent } from '../sql-dialect.interface.js';
import type { StatementTexts } from '../statement-definition.js';
import type { Statements } from '../statements.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';

/**
 * The texts of the statements the catalog composes itself (statement-catalog.ts), which no
 * definition of statements.ts describes: the outbox inserts (a one-row form of scalars and a form
 * of lists for many rows or a delay, each again with a wake-up where the dialect carries one with
 * the commit), the claims (their lock and probe follow the options and the dialect), and the drop
 * of a schema of QueueBox's own (no text exists without one).
 */
export interface CompositeTexts {
  /** One row without delay: message id, destination, key, headers, payload. */
  insertOutboxOne(t: ResolvedTableNames): string;
  /** Lists of the same, and of delays. */
  insertOutbox(t: ResolvedTableNames): string;
  /** The same inserts that also send a wake-up with their transaction's commit: two more parameters, channel and sender. */
  notifyingInserts?: { insertOutboxOne(t: ResolvedTableNames): string; insertOutbox(t: ResolvedTableNames): string };
  claimOutbox(t: ResolvedTableNames): string;
  claimInbox(t: ResolvedTableNames): string;
  claimPull(t: ResolvedTableNames): string;
  /**
   * A lock-free "anything due?" read a claim after an idle poll runs first (SQL Server, where a
   * claim always takes its lock and no wake-up says when to look). Its one parameter: the
   * destinations (outbox), the sources (relay), the source (pull).
   */
  dueProbe?(t: ResolvedTableNames, kind: ClaimComponent): string;
  /** Only for a schema QueueBox made for itself (a conformance run's, a test's). */
  dropSchema(t: ResolvedTableNames & { schema: string }): string;
}

/**
 * Every SQL text of one database, as pure functions of validated table names (the mirrored
 * `*.sql.ts` files of lib/database/dialects/<database>/, whose headers say what each binds, locks and
 * fences): one per statement definition, and the composites'. A dialect that lacks one does not
 * compile.
 */
export type DialectTexts = StatementTexts<Statements> & CompositeTexts;
