import { createHash } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import type { BlockedKey, ClaimAtRisk, DeadLetterDetail, RowStateRow } from '../../interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../interfaces/dead-letter.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../../interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import { InvalidArgumentError } from '../../errors/invalid-argument.error.js';
import { noOwnSchema } from '../../queuebox.messages.js';
import { deadCounts as deadCountsSql } from './dead-counts.sql.js';
import {
  claimDecoder,
  completionDecoder,
  blockedKeysDecoder,
  claimsAtRiskDecoder,
  deadDetailDecoder,
  decodeBacklog,
  decodeDeadCounts,
  decodeDeadInbox,
  decodeDeadOutbox,
  decodeIds,
  decodeInboxRow,
  decodeInsertedOutbox,
  decodeNothing,
  decodeNow,
  decodePendingWork,
  decodePresent,
  decodeOptionalId,
  decodeOutboxRow,
  decodeRowStates,
  decodeRenewals,
} from '../decode-rows.js';
import type {
  ClaimKind,
  ClaimLock,
  ClaimOptions,
  ClaimPlan,
  ClaimRequest,
  ClaimTable,
  DeadRowFilter,
  DeadRowPage,
  FencedRow,
  InboxInsertRow,
  OutboxInsertRow,
  SqlDialect,
  SqlStatement,
} from '../sql-dialect.interface.js';
import type {
  BacklogRow,
  DeadCountRow,
  ClaimedInboxRow,
  ClaimedOutboxRow,
  CompletionRow,
  DatabaseErrorKind,
  DriverRow,
  InsertedOutboxRow,
  PendingWorkRow,
  RenewalRow,
} from '../statement-results.js';
import * as blocked from './blocked-keys.sql.js';
import * as claimLockSql from './claim-lock.sql.js';
import * as atRisk from './claims-at-risk.sql.js';
import * as clock from './clock.sql.js';
import * as pendingWorkSql from './pending-work.sql.js';
import * as schemaLifecycle from './schema-lifecycle.sql.js';
import * as deadLetters from './dead-letters.sql.js';
import * as fenced from './fenced-writes.sql.js';
import * as inbox from './inbox.sql.js';
import { PostgresNotifyTransport } from './notify-transport.js';
import * as outbox from './outbox.sql.js';
import { classifyPostgresError } from './postgres-errors.js';
import { executeOnPostgres } from './postgres-executor.js';
import * as pull from './pull.sql.js';
import * as retention from './retention.sql.js';
import * as rows from './row-states.sql.js';

const decodeClaimedOutbox = claimDecoder(decodeOutboxRow);
const decodeClaimedInbox = claimDecoder(decodeInboxRow);
const decodeOutboxCompletion = completionDecoder(decodeOutboxRow);
const decodeInboxCompletion = completionDecoder(decodeInboxRow);
const decodeGranted = (rows: readonly DriverRow[]): boolean => rows.length === 1 && rows[0].granted === true;

/**
 * PostgreSQL: `$n` placeholders, `statement_timestamp()` as the clock, SKIP LOCKED claims,
 * advisory claim locks where asked for (always for the relay), LISTEN/NOTIFY wake-ups.
 */
export class PostgresDialect implements SqlDialect {
  readonly type = 'postgres' as const;
  readonly claimLockAlways = false;
  readonly isolationSticks = false;
  private readonly text: Record<string, string>;
  private readonly names: Record<string, string> = {};

  /**
   * `prepared`: give the hot statements (claims, completions, renewals) a name, so that they run
   * as prepared statements (planned once per connection). Off behind a pooler that does not keep
   * prepared statements across transactions (PgBouncer before 1.21 in transaction mode).
   */
  constructor(
    readonly tables: ResolvedTableNames,
    private readonly prepared = true,
  ) {
    // Statement text depends only on the table names: build it once.
    this.text = {
      databaseNow: clock.databaseNow(),
      pendingWork: pendingWorkSql.pendingWork(tables),
      schemaExists: schemaLifecycle.schemaExists(),
      insertOutbox: outbox.insertOutbox(tables),
      insertOutboxOne: outbox.insertOutboxOne(tables),
      insertOutboxNotifying: outbox.withCommitNotify(outbox.insertOutbox(tables), 6),
      insertOutboxOneNotifying: outbox.withCommitNotify(outbox.insertOutboxOne(tables), 5),
      claimOutbox: outbox.claimOutbox(tables),
      outboxBacklog: outbox.outboxBacklog(tables),
      insertInbox: inbox.insertInbox(tables),
      findInbox: inbox.findInbox(tables),
      claimInbox: inbox.claimInbox(tables),
      inboxBacklog: inbox.inboxBacklog(tables),
      claimPull: pull.claimPull(tables),
      'completeMany:outbox': fenced.completeMany(tables, 'outbox', outbox.OUTBOX_CLAIM_COLUMNS),
      'completeMany:relay': fenced.completeMany(tables, 'relay', inbox.INBOX_CLAIM_COLUMNS),
      'completeMany:pull': fenced.completeMany(tables, 'pull', inbox.INBOX_CLAIM_COLUMNS),
      ...Object.fromEntries(
        (['outbox', 'inbox'] as const).flatMap((table) => [
          [`renew:${table}`, fenced.renew(tables, table)],
          [`renewMany:${table}`, fenced.renewMany(tables, table)],
          [`retry:${table}`, fenced.retry(tables, table)],
          [`deadLetter:${table}`, fenced.deadLetter(tables, table)],
          [`reclaimExpired:${table}`, fenced.reclaimExpired(tables, table)],
          [`listDead:${table}`, deadLetters.listDead(tables, table)],
          [`replayDead:${table}`, deadLetters.replayDead(tables, table)],
          [`inspectDead:${table}`, deadLetters.inspectDead(tables, table)],
          [`replayDeadMatching:${table}`, deadLetters.replayDeadMatching(tables, table)],
          [`discardDead:${table}`, deadLetters.discardDead(tables, table)],
          [`discardDeadMatching:${table}`, deadLetters.discardDeadMatching(tables, table)],
          [`blockedKeys:${table}`, blocked.blockedKeys(tables, table)],
          [`rowStates:${table}`, rows.rowStates(tables, table)],
          [`claimsAtRisk:${table}`, atRisk.claimsAtRisk(tables, table)],
          [`deadCounts:${table}`, deadCountsSql(tables, table)],
          [`purge:${table}:done`, retention.purgeFinished(tables, table, 'done')],
          [`purge:${table}:dead`, retention.purgeFinished(tables, table, 'dead')],
        ]),
      ),
    };
  }

  execute(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]> {
    return executeOnPostgres(runner, statement);
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    return classifyPostgresError(error);
  }

  createWakeUpTransport(dataSource: DataSource, instanceId: string): WakeUpTransport {
    return new PostgresNotifyTransport(dataSource, this.tables, instanceId);
  }

  startupProbe(): undefined {
    return undefined;
  }

  insertOutbox(rows: readonly OutboxInsertRow[], wakeUp?: CommitWakeUp): SqlStatement<InsertedOutboxRow[]> {
    const notifying = wakeUp ? [wakeUp.channel, wakeUp.sender] : [];
    if (rows.length === 1 && rows[0].delayMs === 0) {
      const [row] = rows;
      const params = [row.messageId, row.destination, row.key, row.headers, row.payload, ...notifying];
      return { sql: wakeUp ? this.text.insertOutboxOneNotifying : this.text.insertOutboxOne, params, decode: decodeInsertedOutbox };
    }
    return {
      sql: wakeUp ? this.text.insertOutboxNotifying : this.text.insertOutbox,
      params: [
        rows.map((r) => r.messageId),
        rows.map((r) => r.destination),
        rows.map((r) => r.key),
        rows.map((r) => r.headers),
        rows.map((r) => r.payload),
        rows.map((r) => r.delayMs),
        ...notifying,
      ],
      decode: decodeInsertedOutbox,
    };
  }

  claimOutbox(request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedOutboxRow> {
    // The documented lock names (docs/concepts/claims-and-leases.md, "Locks"), keyed on the
    // (schema-qualified) table name: advisory locks are per database, and instances on other
    // schemas must not wait for each other.
    const lock = options.lock ? this.lock(`queuebox_outbox_claim_${this.lockTableName('outbox')}`) : undefined;
    return { lock, isolation: 'READ COMMITTED', claim: this.hot('claimOutbox', claimParams(request), decodeClaimedOutbox) };
  }

  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow> {
    return {
      lock: this.lock(`queuebox_inbox_claim_${this.lockTableName('inbox')}`),
      isolation: 'READ COMMITTED',
      claim: this.hot('claimInbox', [...claimParams(request), [...sources]], decodeClaimedInbox),
    };
  }

  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow> {
    // Per source: pull workers of different sources never wait for each other.
    const lock = options.lock ? this.lock(`queuebox_pull_${this.lockTableName('inbox')}:${source}`) : undefined;
    const params = [...claimParams({ ...request, cursor: { stream: source, key: request.cursor.key } }), [source]];
    return { lock, isolation: 'READ COMMITTED', claim: this.hot('claimPull', params, decodeClaimedInbox) };
  }

  databaseNow(): SqlStatement<Date> {
    return { sql: this.text.databaseNow, params: [], decode: decodeNow };
  }

  pendingWork(): SqlStatement<PendingWorkRow[]> {
    return { sql: this.text.pendingWork, params: [], decode: decodePendingWork };
  }

  schemaExists(schema: string): SqlStatement<boolean> {
    return { sql: this.text.schemaExists, params: [schema], decode: decodePresent };
  }

  dropSchema(): SqlStatement<void> {
    const { schema } = this.tables;
    if (!schema) throw new InvalidArgumentError('schema', noOwnSchema());
    return { sql: schemaLifecycle.dropSchema({ ...this.tables, schema }), params: [], decode: decodeNothing };
  }

  outboxBacklog(): SqlStatement<BacklogRow[]> {
    return { sql: this.text.outboxBacklog, params: [], decode: decodeBacklog };
  }

  insertInbox(row: InboxInsertRow): SqlStatement<string | undefined> {
    return { sql: this.text.insertInbox, params: [row.source, row.idempotencyKey, row.key, row.headers, row.payload], decode: decodeOptionalId };
  }

  findInbox(source: string, idempotencyKey: string): SqlStatement<string | undefined> {
    return { sql: this.text.findInbox, params: [source, idempotencyKey], decode: decodeOptionalId };
  }

  inboxBacklog(): SqlStatement<BacklogRow[]> {
    return { sql: this.text.inboxBacklog, params: [], decode: decodeBacklog };
  }

  renew(table: ClaimTable, row: FencedRow, leaseMs: number): SqlStatement<string[]> {
    return { sql: this.text[`renew:${table}`], params: [row.id, row.token, leaseMs], decode: decodeIds };
  }

  renewMany(table: ClaimTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement<RenewalRow[]> {
    return this.hot(`renewMany:${table}`, [rows.map((r) => r.id), rows.map((r) => r.token), leaseMs], decodeRenewals);
  }

  completeMany(kind: 'outbox', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedOutboxRow>[]>;
  completeMany(kind: 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedInboxRow>[]>;
  completeMany(kind: ClaimKind, rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]> {
    const params = [rows.map((r) => r.id), rows.map((r) => r.token), handOffLeaseMs ?? 0, handOffLeaseMs !== undefined];
    return this.hot<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]>(`completeMany:${kind}`, params, kind === 'outbox' ? decodeOutboxCompletion : decodeInboxCompletion);
  }

  retry(table: ClaimTable, row: FencedRow, delayMs: number, error: string): SqlStatement<string[]> {
    return { sql: this.text[`retry:${table}`], params: [row.id, row.token, delayMs, error], decode: decodeIds };
  }

  deadLetter(table: ClaimTable, row: FencedRow, error: string): SqlStatement<string[]> {
    return { sql: this.text[`deadLetter:${table}`], params: [row.id, row.token, error], decode: decodeIds };
  }

  reclaimExpired(table: ClaimTable, limit: number, sources: readonly string[] = []): SqlStatement<string[]> {
    return { sql: this.text[`reclaimExpired:${table}`], params: table === 'inbox' ? [limit, [...sources]] : [limit], decode: decodeIds };
  }

  listDeadOutbox(page: DeadRowPage): SqlStatement<DeadOutboxMessage[]> {
    return { sql: this.text['listDead:outbox'], params: pageParams(page), decode: decodeDeadOutbox };
  }

  listDeadInbox(page: DeadRowPage): SqlStatement<DeadInboxMessage[]> {
    return { sql: this.text['listDead:inbox'], params: pageParams(page), decode: decodeDeadInbox };
  }

  inspectDead(table: ClaimTable, id: string, withPayload: boolean): SqlStatement<DeadLetterDetail | undefined> {
    return { sql: this.text[`inspectDead:${table}`], params: [id, withPayload], decode: deadDetailDecoder(table) };
  }

  purgeFinished(table: ClaimTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement<string[]> {
    return { sql: this.text[`purge:${table}:${state}`], params: [olderThanMs, limit], decode: decodeIds };
  }

  replayDead(table: ClaimTable, ids: readonly string[]): SqlStatement<string[]> {
    return { sql: this.text[`replayDead:${table}`], params: [[...ids]], decode: decodeIds };
  }

  replayDeadMatching(table: ClaimTable, page: DeadRowPage): SqlStatement<string[]> {
    return { sql: this.text[`replayDeadMatching:${table}`], params: pageParams(page), decode: decodeIds };
  }

  discardDead(table: ClaimTable, ids: readonly string[]): SqlStatement<string[]> {
    return { sql: this.text[`discardDead:${table}`], params: [[...ids]], decode: decodeIds };
  }

  discardDeadMatching(table: ClaimTable, page: DeadRowPage): SqlStatement<string[]> {
    return { sql: this.text[`discardDeadMatching:${table}`], params: pageParams(page), decode: decodeIds };
  }

  rowStates(table: ClaimTable, ids: readonly string[]): SqlStatement<RowStateRow[]> {
    return { sql: this.text[`rowStates:${table}`], params: [[...ids]], decode: decodeRowStates };
  }

  blockedKeys(table: ClaimTable, limit: number): SqlStatement<BlockedKey[]> {
    return { sql: this.text[`blockedKeys:${table}`], params: [limit], decode: blockedKeysDecoder(table) };
  }

  claimsAtRisk(table: ClaimTable, withinMs: number, limit: number): SqlStatement<ClaimAtRisk[]> {
    return { sql: this.text[`claimsAtRisk:${table}`], params: [withinMs, limit], decode: claimsAtRiskDecoder(table) };
  }

  deadCounts(table: ClaimTable): SqlStatement<DeadCountRow[]> {
    return { sql: this.text[`deadCounts:${table}`], params: [], decode: decodeDeadCounts };
  }

  /** A hot statement: named after its text, so that every connection prepares it once. */
  private hot<Result>(key: string, params: unknown[], decode: (rows: readonly DriverRow[]) => Result): SqlStatement<Result> {
    const sql = this.text[key];
    if (!this.prepared) return { sql, params, decode };
    this.names[key] ??= `queuebox_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    return { sql, params, name: this.names[key], decode };
  }

  private lockTableName(table: ClaimTable): string {
    return this.tables.schema ? `${this.tables.schema}.${this.tables[table]}` : this.tables[table];
  }

  private lock(name: string): ClaimLock {
    return {
      setup: [{ sql: claimLockSql.claimLockTimeout(), params: [], decode: decodeNothing }],
      acquire: { sql: claimLockSql.claimLock(), params: [name], decode: decodeGranted },
    };
  }
}

/** $1 … $6 of every claim statement (claim.sql.ts). */
function claimParams(request: ClaimRequest): unknown[] {
  return [request.batchSize, request.leaseMs, request.walkKeys, request.windowRows, request.cursor.stream, request.cursor.key];
}


/** $1 … $6 of the dead-row statements of a filter (dead-letters.sql.ts). */
function pageParams({ afterId, limit, filter }: DeadRowPage): unknown[] {
  return [afterId, limit, ...filterParams(filter)];
}

function filterParams(filter: DeadRowFilter): unknown[] {
  return [filter.stream, filter.errorContains, filter.deadSince, filter.deadBefore];
}
