import type { QueryRunner } from 'typeorm';
import type { BlockedKey, ClaimAtRisk, DeadLetterDetail, RowStateRow } from '../../interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../interfaces/dead-letter.interface.js';
import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import { InvalidArgumentError } from '../../errors/invalid-argument.error.js';
import { mssqlCompatibilityTooLow, mssqlDatabaseMode, noOwnSchema } from '../../queuebox.messages.js';
import { deadCounts as deadCountsSql } from './dead-counts.sql.js';
import {
  claimDecoder,
  completionDecoder,
  decodeAnyRow,
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
  decodeOptionalId,
  decodePendingWork,
  decodePresent,
  decodeOutboxRow,
  decodeRowStates,
  decodeRenewals,
} from '../decode-rows.js';
import type {
  ClaimKind,
  ClaimLock,
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
  ClaimResult,
  CompletionRow,
  DatabaseErrorKind,
  DatabaseFacts,
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
import { dueProbe } from './claim.sql.js';
import * as deadLetters from './dead-letters.sql.js';
import * as fenced from './fenced-writes.sql.js';
import * as inbox from './inbox.sql.js';
import { classifyMssqlError } from './mssql-errors.js';
import { lockResource, pullLockResource } from './mssql-names.js';
import { bigintParam, bitParam, guidParam, identifierParam, idParam, instantParam, intParam, jsonParam, keyParam, resourceParam, textParam } from './mssql-parameters.js';
import * as outbox from './outbox.sql.js';
import * as pull from './pull.sql.js';
import * as retention from './retention.sql.js';
import * as rows from './row-states.sql.js';
import { startupProbe } from './startup-probe.sql.js';

/** OPENJSON, which every list parameter is read with, needs compatibility level 130 (SQL Server 2016). */
const MIN_COMPATIBILITY_LEVEL = 130;

const decodeClaimedOutbox = claimDecoder(decodeOutboxRow);
const decodeClaimedInbox = claimDecoder(decodeInboxRow);
const decodeOutboxCompletion = completionDecoder(decodeOutboxRow);
const decodeInboxCompletion = completionDecoder(decodeInboxRow);
/** `sp_getapplock`'s return code: 0 or 1 granted, negative not (timeout, deadlock victim, …). */
const decodeGranted = (rows: readonly DriverRow[]): boolean => rows.length === 1 && Number(rows[0].granted) >= 0;

function decodeFacts(rows: readonly DriverRow[]): DatabaseFacts {
  const [row] = rows;
  const level = Number(row?.compatibility_level);
  const rcsi = row?.read_committed_snapshot === true || row?.read_committed_snapshot === 1;
  return {
    problems: level >= MIN_COMPATIBILITY_LEVEL ? [] : [mssqlCompatibilityTooLow(level, MIN_COMPATIBILITY_LEVEL)],
    notes: [mssqlDatabaseMode(level, rcsi)],
  };
}

/**
 * SQL Server through TypeORM's `mssql` driver (docs/guides/sql-server.md): `@n` placeholders with
 * typed parameters of constant length, `SYSUTCDATETIME()` as the only clock, a transaction-owned
 * application lock on every claim, `UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK` on claim
 * candidates, `OUTPUT` rows as the only count of a write, lists as JSON read with OPENJSON. No
 * cross-replica wake-up: replicas poll, and an idle poll costs one lock-free probe.
 */
export class MssqlDialect implements SqlDialect {
  readonly type = 'mssql' as const;
  readonly claimLockAlways = true;
  readonly isolationSticks = true;
  private readonly text: Record<string, string>;

  constructor(readonly tables: ResolvedTableNames) {
    // Statement text depends only on the table names: build it once.
    this.text = {
      databaseNow: clock.databaseNow(),
      pendingWork: pendingWorkSql.pendingWork(tables),
      schemaExists: schemaLifecycle.schemaExists(),
      insertOutboxOne: outbox.insertOutboxOne(tables),
      insertOutbox: outbox.insertOutbox(tables),
      claimOutbox: outbox.claimOutbox(tables),
      outboxBacklog: outbox.outboxBacklog(tables),
      insertInbox: inbox.insertInbox(tables),
      findInbox: inbox.findInbox(tables),
      claimInbox: inbox.claimInbox(tables),
      inboxBacklog: inbox.inboxBacklog(tables),
      claimPull: pull.claimPull(tables),
      claimLock: claimLockSql.claimLock(),
      startupProbe: startupProbe(),
      ...Object.fromEntries((['outbox', 'relay', 'pull'] as const).flatMap((kind) => [
        [`completeMany:${kind}`, fenced.completeMany(tables, kind)],
        [`dueProbe:${kind}`, dueProbe(tables, kind)],
      ])),
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

  /**
   * Always a structured result: `records` is the request's first result set, which every
   * statement here makes its only one; a request without a result set gives no rows.
   */
  async execute(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]> {
    const result = await runner.query(statement.sql, [...statement.params], true);
    return (result.records ?? []) as DriverRow[];
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    return classifyMssqlError(error);
  }

  /** None: SQL Server has no LISTEN/NOTIFY. Replicas find other replicas' rows by polling (with a probe). */
  createWakeUpTransport(): undefined {
    return undefined;
  }

  startupProbe(): SqlStatement<DatabaseFacts> {
    return { sql: this.text.startupProbe, params: [], decode: decodeFacts };
  }

  insertOutbox(rows: readonly OutboxInsertRow[]): SqlStatement<InsertedOutboxRow[]> {
    if (rows.length === 1 && rows[0].delayMs === 0) {
      const [row] = rows;
      const params = [guidParam(row.messageId), keyParam(row.destination), keyParam(row.key), textParam(row.headers), textParam(row.payload)];
      return { sql: this.text.insertOutboxOne, params, decode: decodeInsertedOutbox };
    }
    const params = [
      jsonParam(rows.map((r) => r.messageId)),
      jsonParam(rows.map((r) => r.destination)),
      jsonParam(rows.map((r) => r.key)),
      jsonParam(rows.map((r) => r.headers)),
      jsonParam(rows.map((r) => r.payload)),
      jsonParam(rows.map((r) => r.delayMs)),
    ];
    return { sql: this.text.insertOutbox, params, decode: decodeInsertedOutbox };
  }

  /** The outbox claim, always after the claim lock (the `lock` option changes nothing here). */
  claimOutbox(request: ClaimRequest): ClaimPlan<ClaimedOutboxRow> {
    return this.plan('outbox', lockResource(this.tables, 'outbox'), claimParams(request), [], decodeClaimedOutbox, request.afterIdle);
  }

  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow> {
    return this.plan('relay', lockResource(this.tables, 'inbox'), [...claimParams(request), jsonParam(sources)], [jsonParam(sources)], decodeClaimedInbox, request.afterIdle);
  }

  /** A pull claim of `source`, always after the source's claim lock. */
  claimPull(source: string, request: ClaimRequest): ClaimPlan<ClaimedInboxRow> {
    const params = [...claimParams({ ...request, cursor: { stream: source, key: request.cursor.key } }), jsonParam([source])];
    return this.plan('pull', pullLockResource(this.tables, source), params, [keyParam(source)], decodeClaimedInbox, request.afterIdle);
  }

  outboxBacklog(): SqlStatement<BacklogRow[]> {
    return { sql: this.text.outboxBacklog, params: [], decode: decodeBacklog };
  }

  insertInbox(row: InboxInsertRow): SqlStatement<string | undefined> {
    const params = [keyParam(row.source), keyParam(row.idempotencyKey), keyParam(row.key), textParam(row.headers), textParam(row.payload)];
    return { sql: this.text.insertInbox, params, decode: decodeOptionalId };
  }

  findInbox(source: string, idempotencyKey: string): SqlStatement<string | undefined> {
    return { sql: this.text.findInbox, params: [keyParam(source), keyParam(idempotencyKey)], decode: decodeOptionalId };
  }

  inboxBacklog(): SqlStatement<BacklogRow[]> {
    return { sql: this.text.inboxBacklog, params: [], decode: decodeBacklog };
  }

  renew(table: ClaimTable, row: FencedRow, leaseMs: number): SqlStatement<string[]> {
    return { sql: this.text[`renew:${table}`], params: [idParam(row.id), guidParam(row.token), intParam(leaseMs)], decode: decodeIds };
  }

  renewMany(table: ClaimTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement<RenewalRow[]> {
    const params = [jsonParam(rows.map((r) => r.id)), jsonParam(rows.map((r) => r.token)), intParam(leaseMs)];
    return { sql: this.text[`renewMany:${table}`], params, decode: decodeRenewals };
  }

  completeMany(kind: 'outbox', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedOutboxRow>[]>;
  completeMany(kind: 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedInboxRow>[]>;
  completeMany(kind: ClaimKind, rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]> {
    const params = [jsonParam(rows.map((r) => r.id)), jsonParam(rows.map((r) => r.token)), intParam(handOffLeaseMs ?? 0), bitParam(handOffLeaseMs !== undefined)];
    const decode: (rows: readonly DriverRow[]) => CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[] = kind === 'outbox' ? decodeOutboxCompletion : decodeInboxCompletion;
    return { sql: this.text[`completeMany:${kind}`], params, decode };
  }

  retry(table: ClaimTable, row: FencedRow, delayMs: number, error: string): SqlStatement<string[]> {
    return { sql: this.text[`retry:${table}`], params: [idParam(row.id), guidParam(row.token), intParam(delayMs), textParam(error)], decode: decodeIds };
  }

  deadLetter(table: ClaimTable, row: FencedRow, error: string): SqlStatement<string[]> {
    return { sql: this.text[`deadLetter:${table}`], params: [idParam(row.id), guidParam(row.token), textParam(error)], decode: decodeIds };
  }

  reclaimExpired(table: ClaimTable, limit: number, sources: readonly string[] = []): SqlStatement<string[]> {
    const params = table === 'inbox' ? [intParam(limit), jsonParam(sources)] : [intParam(limit)];
    return { sql: this.text[`reclaimExpired:${table}`], params, decode: decodeIds };
  }

  listDeadOutbox(page: DeadRowPage): SqlStatement<DeadOutboxMessage[]> {
    return { sql: this.text['listDead:outbox'], params: pageParams(page), decode: decodeDeadOutbox };
  }

  listDeadInbox(page: DeadRowPage): SqlStatement<DeadInboxMessage[]> {
    return { sql: this.text['listDead:inbox'], params: pageParams(page), decode: decodeDeadInbox };
  }

  inspectDead(table: ClaimTable, id: string, withPayload: boolean): SqlStatement<DeadLetterDetail | undefined> {
    return { sql: this.text[`inspectDead:${table}`], params: [idParam(id), bitParam(withPayload)], decode: deadDetailDecoder(table) };
  }

  purgeFinished(table: ClaimTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement<string[]> {
    return { sql: this.text[`purge:${table}:${state}`], params: [bigintParam(olderThanMs), intParam(limit)], decode: decodeIds };
  }

  replayDead(table: ClaimTable, ids: readonly string[]): SqlStatement<string[]> {
    return { sql: this.text[`replayDead:${table}`], params: [jsonParam(ids)], decode: decodeIds };
  }

  replayDeadMatching(table: ClaimTable, page: DeadRowPage): SqlStatement<string[]> {
    return { sql: this.text[`replayDeadMatching:${table}`], params: pageParams(page), decode: decodeIds };
  }

  discardDead(table: ClaimTable, ids: readonly string[]): SqlStatement<string[]> {
    return { sql: this.text[`discardDead:${table}`], params: [jsonParam(ids)], decode: decodeIds };
  }

  discardDeadMatching(table: ClaimTable, page: DeadRowPage): SqlStatement<string[]> {
    return { sql: this.text[`discardDeadMatching:${table}`], params: pageParams(page), decode: decodeIds };
  }

  rowStates(table: ClaimTable, ids: readonly string[]): SqlStatement<RowStateRow[]> {
    return { sql: this.text[`rowStates:${table}`], params: [jsonParam(ids)], decode: decodeRowStates };
  }

  blockedKeys(table: ClaimTable, limit: number): SqlStatement<BlockedKey[]> {
    return { sql: this.text[`blockedKeys:${table}`], params: [intParam(limit)], decode: blockedKeysDecoder(table) };
  }

  claimsAtRisk(table: ClaimTable, withinMs: number, limit: number): SqlStatement<ClaimAtRisk[]> {
    return { sql: this.text[`claimsAtRisk:${table}`], params: [intParam(withinMs), intParam(limit)], decode: claimsAtRiskDecoder(table) };
  }

  databaseNow(): SqlStatement<Date> {
    return { sql: this.text.databaseNow, params: [], decode: decodeNow };
  }

  pendingWork(): SqlStatement<PendingWorkRow[]> {
    return { sql: this.text.pendingWork, params: [], decode: decodePendingWork };
  }

  schemaExists(schema: string): SqlStatement<boolean> {
    return { sql: this.text.schemaExists, params: [identifierParam(schema)], decode: decodePresent };
  }

  dropSchema(): SqlStatement<void> {
    const { schema } = this.tables;
    if (!schema) throw new InvalidArgumentError('schema', noOwnSchema());
    return { sql: schemaLifecycle.dropSchema({ ...this.tables, schema }), params: [], decode: decodeNothing };
  }

  deadCounts(table: ClaimTable): SqlStatement<DeadCountRow[]> {
    return { sql: this.text[`deadCounts:${table}`], params: [], decode: decodeDeadCounts };
  }

  /**
   * Every SQL Server claim: the application lock in its own request, first in a READ COMMITTED
   * transaction, then the claim; after an idle poll, a lock-free probe first (no transaction, no
   * lock when nothing is due).
   */
  private plan<Row>(
    kind: ClaimKind,
    resource: string,
    params: unknown[],
    probeParams: unknown[],
    decode: (rows: readonly DriverRow[]) => ClaimResult<Row>,
    afterIdle = false,
  ): ClaimPlan<Row> {
    const lock: ClaimLock = { setup: [], acquire: { sql: this.text.claimLock, params: [resourceParam(resource)], decode: decodeGranted } };
    const probe = afterIdle ? { sql: this.text[`dueProbe:${kind}`], params: probeParams, decode: decodeAnyRow } : undefined;
    return { probe, lock, isolation: 'READ COMMITTED', claim: { sql: this.text[`claim${kind === 'outbox' ? 'Outbox' : kind === 'relay' ? 'Inbox' : 'Pull'}`], params, decode } };
  }
}

/** @0 … @5 of every claim (claim.sql.ts). */
function claimParams(request: ClaimRequest): unknown[] {
  return [intParam(request.batchSize), intParam(request.leaseMs), intParam(request.walkKeys), intParam(request.windowRows), keyParam(request.cursor.stream), keyParam(request.cursor.key)];
}

/** @0 … @5 of the dead-row statements of a filter (dead-letters.sql.ts), typed. */
function pageParams({ afterId, limit, filter }: DeadRowPage): unknown[] {
  return [idParam(afterId), intParam(limit), ...filterParams(filter)];
}

function filterParams(filter: DeadRowFilter): unknown[] {
  return [keyParam(filter.stream), textParam(filter.errorContains), instantParam(filter.deadSince), instantParam(filter.deadBefore)];
}
