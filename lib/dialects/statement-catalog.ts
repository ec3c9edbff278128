import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { type ConnectionPooling, SESSION_PER_CONNECTION } from '../database/connection-pooling.js';
import { errorText } from '../errors/error-text.js';
import type { BlockedKey, ClaimAtRisk, DeadLetterDetail, RowStateRow } from '../interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../interfaces/dead-letter.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import { noOwnSchema, preparedStatementLost } from '../queuebox.messages.js';
import { claimLockName, type ClaimLockTarget } from './claim-lock-names.js';
import { CLAIMERS, QUEUEBOX_TABLES } from '../queuebox.claimers.js';
import {
  blockedKeysDecoder,
  claimDecoder,
  claimsAtRiskDecoder,
  completionDecoder,
  deadDetailDecoder,
  decodeAnyRow,
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
  decodeOutboxRow,
  decodePendingWork,
  decodePresent,
  decodeRenewals,
  decodeRowStates,
  decodeTableColumns,
} from './decode-rows.js';
import type { DialectName } from './dialect-registry.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, withinDeadline } from './statement-deadline.js';
import type { DialectProfile, ParameterEncoders } from './dialect-profile.interface.js';
import type {
  ClaimComponent,
  ClaimLock,
  ClaimOptions,
  ClaimPlan,
  ClaimRequest,
  QueueBoxTable,
  DeadRowPage,
  FencedRow,
  InboxInsertRow,
  OutboxInsertRow,
  SqlDialect,
  SqlStatement,
} from '../database/sql-dialect.interface.js';
import type { BacklogRow, ClaimedInboxRow, ClaimedOutboxRow, ClaimResult, CompletionRow, DatabaseErrorKind, DatabaseFacts, DeadCountRow, DriverRow, InsertedOutboxRow, RenewalRow, TableColumns } from '../database/statement-results.js';
import type { PendingWorkRow } from '../interfaces/pending-work.interface.js';
import { perClaimComponent, statementTexts, type StatementKey, type StatementTexts } from './statement-keys.js';

const decodeClaimedOutbox = claimDecoder(decodeOutboxRow);
const decodeClaimedInbox = claimDecoder(decodeInboxRow);
const decodeOutboxCompletion = completionDecoder(decodeOutboxRow);
const decodeInboxCompletion = completionDecoder(decodeInboxRow);

const CLAIM_KEY = { outbox: 'claimOutbox', relay: 'claimInbox', pull: 'claimPull' } as const satisfies Record<ClaimComponent, StatementKey>;

/** What the catalog is built with besides the profile and the tables. */
export interface CatalogOptions {
  /**
   * Name the hot statements, so that they run as prepared statements where the dialect
   * `prepares` (default true). Off behind a pooler that does not keep prepared statements across
   * transactions (PgBouncer before 1.21 in transaction mode).
   */
  prepared?: boolean;
  /** The client-side deadline of every statement, in ms (`statementTimeoutMs`; default 30 000). */
  statementTimeoutMs?: number;
}

/**
 * Every statement of `SqlDialect`, once, for any dialect: the text by its typed key from a table
 * built once from the profile's SQL, each value through the profile's encoder for its kind, the
 * shared decoder of its rows. What differs between databases beyond text and encoding is a capability the profile
 * states (the claim lock, the idle probe, prepared hot statements, commit wake-ups), never a
 * branch on a database's name.
 */
export class StatementCatalog implements SqlDialect {
  private readonly text: StatementTexts;
  private readonly probes?: Readonly<Record<`dueProbe:${ClaimComponent}`, string>>;
  private readonly notifying?: Readonly<Record<'insertOutbox' | 'insertOutboxOne', string>>;
  private readonly oneRow?: Readonly<Record<`completeOne:${ClaimComponent}`, string>>;
  private readonly encode: ParameterEncoders;
  private prepared: boolean;
  private poolingFound: ConnectionPooling = SESSION_PER_CONNECTION;
  private readonly logger = new Logger('QueueBox');
  private readonly statementTimeoutMs: number;
  private readonly names: Partial<Record<StatementKey | `completeOne:${ClaimComponent}`, string>> = {};

  constructor(
    readonly profile: DialectProfile<DialectName>,
    readonly tables: ResolvedTableNames,
    options: CatalogOptions = {},
  ) {
    // Statement text depends only on the table names: build it once.
    this.text = statementTexts(profile.sql, tables);
    const { idleProbe } = profile;
    this.probes = idleProbe && perClaimComponent('dueProbe', (kind) => idleProbe.dueProbe(tables, kind));
    const { completeOne } = profile;
    this.oneRow = completeOne && perClaimComponent('completeOne', (kind) => completeOne(tables, kind));
    const notifying = profile.wakeUp?.notifyingInserts;
    this.notifying = notifying && { insertOutbox: notifying.insertOutbox(tables), insertOutboxOne: notifying.insertOutboxOne(tables) };
    this.encode = profile.encode;
    this.prepared = profile.prepares && (options.prepared ?? true);
    this.statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  }

  get type(): DialectName {
    return this.profile.name;
  }

  get displayName(): string {
    return this.profile.displayName;
  }

  get wakesReplicas(): boolean {
    return this.profile.wakeUp !== undefined;
  }

  get claimLockAlways(): boolean {
    return this.profile.claimLock.taken === 'always';
  }

  get isolationSticks(): boolean {
    return this.profile.isolationSticks;
  }

  execute(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]> {
    const running = this.bounded(runner, () => this.profile.execute(runner, statement));
    return statement.name ? running.catch((error: unknown) => this.unprepared(runner, statement, error)) : running;
  }

  get pooling(): ConnectionPooling {
    return this.poolingFound;
  }

  async probePooling(dataSource: DataSource): Promise<ConnectionPooling> {
    const probe = this.profile.probePooling;
    if (probe) this.poolingFound = await probe(dataSource, { statementTimeoutMs: this.statementTimeoutMs, discard: this.profile.discardConnection });
    return this.poolingFound;
  }

  stopPreparing(): void {
    this.prepared = false;
  }

  /**
   * A named statement the session serving it does not know (or knows from another client): the
   * connection moved to another backend since it prepared it, so the connections are pooled per
   * transaction, whatever the start-up probe saw (a pooler put in front of the database since, or
   * a probe that a busy pool fooled). Every hot statement runs unnamed from now on, said once. The
   * statement did not run: outside a transaction it runs again, unnamed; inside one, the error
   * stands (the transaction is aborted) and the caller's retry runs unnamed.
   */
  private unprepared(runner: QueryRunner, statement: SqlStatement, error: unknown): Promise<DriverRow[]> {
    if (this.profile.classifyError(error) !== 'prepared-statement-lost') throw error;
    if (this.prepared) {
      this.prepared = false;
      this.poolingFound = { sessionPerTransaction: true, preparedStatementsKept: false };
      this.logger.warn(preparedStatementLost(errorText(error)));
    }
    if (runner.isTransactionActive) throw error;
    return this.bounded(runner, () => this.profile.execute(runner, { ...statement, name: undefined }));
  }

  bounded<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T> {
    return withinDeadline(runner, this.statementTimeoutMs, this.profile.discardConnection, work);
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    return this.profile.classifyError(error);
  }

  discardConnection(runner: QueryRunner): void {
    this.profile.discardConnection?.(runner);
  }

  createWakeUpTransport(dataSource: DataSource, instanceId: string, listenUrl?: string): WakeUpTransport | undefined {
    return this.profile.wakeUp?.transport(dataSource, this.tables, instanceId, { statementTimeoutMs: this.statementTimeoutMs, discard: this.profile.discardConnection }, listenUrl);
  }

  startupProbe(): SqlStatement<DatabaseFacts> | undefined {
    const probe = this.profile.startupProbe;
    return probe ? { sql: probe.text, params: [], decode: probe.decode } : undefined;
  }

  insertOutbox(rows: readonly OutboxInsertRow[], wakeUp?: CommitWakeUp): SqlStatement<InsertedOutboxRow[]> {
    const e = this.encode;
    // The wake-up rides along only where the database delivers it with the commit (WakeUpProfile.notifyingInserts).
    const texts = wakeUp && this.notifying ? this.notifying : this.text;
    const wakeParams = wakeUp && this.notifying ? [e.text(wakeUp.channel), e.text(wakeUp.sender)] : [];
    if (rows.length === 1 && rows[0].delayMs === 0) {
      const [row] = rows;
      const params = [e.uuid(row.messageId), e.key(row.destination), e.key(row.key), e.text(row.headers), e.text(row.payload), ...wakeParams];
      return { sql: texts.insertOutboxOne, params, decode: decodeInsertedOutbox };
    }
    const params = [
      e.uuids(rows.map((r) => r.messageId)),
      e.keys(rows.map((r) => r.destination)),
      e.keys(rows.map((r) => r.key)),
      e.texts(rows.map((r) => r.headers)),
      e.texts(rows.map((r) => r.payload)),
      e.ints(rows.map((r) => r.delayMs)),
      ...wakeParams,
    ];
    return { sql: texts.insertOutbox, params, decode: decodeInsertedOutbox };
  }

  claimOutbox(destinations: readonly string[], request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedOutboxRow> {
    const params = [...this.claimParams(request), this.encode.keys(destinations)];
    if (this.profile.asyncCommit) params.push(this.encode.flag(options.asyncCommit === true));
    return this.plan({ kind: 'outbox' }, request, options.lock, params, [this.encode.keys(destinations)], decodeClaimedOutbox);
  }

  /** The relay's claim: always after its claim lock, on every database. */
  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow> {
    const params = [...this.claimParams(request), this.encode.keys(sources)];
    return this.plan({ kind: 'relay' }, request, true, params, [this.encode.keys(sources)], decodeClaimedInbox);
  }

  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow> {
    const params = [...this.claimParams({ ...request, cursor: { stream: source, key: request.cursor.key } }), this.encode.keys([source])];
    return this.plan({ kind: 'pull', source }, request, options.lock, params, [this.encode.key(source)], decodeClaimedInbox);
  }

  outboxBacklog(): SqlStatement<BacklogRow[]> {
    return this.statement('outboxBacklog', [], decodeBacklog);
  }

  insertInbox(row: InboxInsertRow): SqlStatement<string | undefined> {
    const e = this.encode;
    return this.statement('insertInbox', [e.key(row.source), e.key(row.idempotencyKey), e.key(row.key), e.text(row.headers), e.text(row.payload)], decodeOptionalId);
  }

  findInbox(source: string, idempotencyKey: string): SqlStatement<string | undefined> {
    return this.statement('findInbox', [this.encode.key(source), this.encode.key(idempotencyKey)], decodeOptionalId);
  }

  inboxBacklog(): SqlStatement<BacklogRow[]> {
    return this.statement('inboxBacklog', [], decodeBacklog);
  }

  renew(table: QueueBoxTable, row: FencedRow, leaseMs: number): SqlStatement<string[]> {
    return this.statement(`renew:${table}`, [this.encode.id(row.id), this.encode.uuid(row.token), this.encode.int(leaseMs)], decodeIds);
  }

  renewMany(table: QueueBoxTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement<RenewalRow[]> {
    const e = this.encode;
    return this.hot(`renewMany:${table}`, [e.ids(rows.map((r) => r.id)), e.uuids(rows.map((r) => r.token)), e.int(leaseMs)], decodeRenewals);
  }

  completeMany(kind: 'outbox', rows: readonly FencedRow[], handOffLeaseMs?: number, asyncCommit?: boolean): SqlStatement<CompletionRow<ClaimedOutboxRow>[]>;
  completeMany(kind: 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement<CompletionRow<ClaimedInboxRow>[]>;
  completeMany(kind: ClaimComponent, rows: readonly FencedRow[], handOffLeaseMs?: number, asyncCommit?: boolean): SqlStatement<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]>;
  completeMany(kind: ClaimComponent, rows: readonly FencedRow[], handOffLeaseMs?: number, asyncCommit = false): SqlStatement<CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[]> {
    const e = this.encode;
    const params = [e.ids(rows.map((r) => r.id)), e.uuids(rows.map((r) => r.token)), e.int(handOffLeaseMs ?? 0), e.flag(handOffLeaseMs !== undefined)];
    // The outbox's marks may commit asynchronously, where the database can.
    if (CLAIMERS[kind].asyncMarks && this.profile.asyncCommit) params.push(e.flag(asyncCommit));
    const decode: (rows: readonly DriverRow[]) => CompletionRow<ClaimedOutboxRow | ClaimedInboxRow>[] = kind === 'outbox' ? decodeOutboxCompletion : decodeInboxCompletion;
    // One row: the dialect's one-row form, where it has one (same parameters, same rows back).
    if (rows.length === 1 && this.oneRow) return this.named(`completeOne:${kind}`, this.oneRow[`completeOne:${kind}`], params, decode);
    return this.hot(`completeMany:${kind}`, params, decode);
  }

  retry(table: QueueBoxTable, row: FencedRow, delayMs: number, error: string): SqlStatement<string[]> {
    const e = this.encode;
    return this.statement(`retry:${table}`, [e.id(row.id), e.uuid(row.token), e.int(delayMs), e.text(error)], decodeIds);
  }

  deadLetter(table: QueueBoxTable, row: FencedRow, error: string): SqlStatement<string[]> {
    return this.statement(`deadLetter:${table}`, [this.encode.id(row.id), this.encode.uuid(row.token), this.encode.text(error)], decodeIds);
  }

  reclaimExpired(table: QueueBoxTable, limit: number, sources: readonly string[] = []): SqlStatement<string[]> {
    const params = QUEUEBOX_TABLES[table].reclaimByStream ? [this.encode.int(limit), this.encode.keys(sources)] : [this.encode.int(limit)];
    return this.statement(`reclaimExpired:${table}`, params, decodeIds);
  }

  listDeadOutbox(page: DeadRowPage): SqlStatement<DeadOutboxMessage[]> {
    return this.statement('listDead:outbox', this.pageParams(page), decodeDeadOutbox);
  }

  listDeadInbox(page: DeadRowPage): SqlStatement<DeadInboxMessage[]> {
    return this.statement('listDead:inbox', this.pageParams(page), decodeDeadInbox);
  }

  inspectDead(table: QueueBoxTable, id: string, withPayload: boolean): SqlStatement<DeadLetterDetail | undefined> {
    return this.statement(`inspectDead:${table}`, [this.encode.id(id), this.encode.flag(withPayload)], deadDetailDecoder(table));
  }

  purgeFinished(table: QueueBoxTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement<string[]> {
    return this.statement(`purge:${state}:${table}`, [this.encode.bigint(olderThanMs), this.encode.int(limit)], decodeIds);
  }

  deadCounts(table: QueueBoxTable): SqlStatement<DeadCountRow[]> {
    return this.statement(`deadCounts:${table}`, [], decodeDeadCounts);
  }

  replayDead(table: QueueBoxTable, ids: readonly string[]): SqlStatement<string[]> {
    return this.statement(`replayDead:${table}`, [this.encode.ids(ids)], decodeIds);
  }

  replayDeadMatching(table: QueueBoxTable, page: DeadRowPage): SqlStatement<string[]> {
    return this.statement(`replayDeadMatching:${table}`, this.pageParams(page), decodeIds);
  }

  discardDead(table: QueueBoxTable, ids: readonly string[]): SqlStatement<string[]> {
    return this.statement(`discardDead:${table}`, [this.encode.ids(ids)], decodeIds);
  }

  discardDeadMatching(table: QueueBoxTable, page: DeadRowPage): SqlStatement<string[]> {
    return this.statement(`discardDeadMatching:${table}`, this.pageParams(page), decodeIds);
  }

  rowStates(table: QueueBoxTable, ids: readonly string[]): SqlStatement<RowStateRow[]> {
    return this.statement(`rowStates:${table}`, [this.encode.ids(ids)], decodeRowStates);
  }

  blockedKeys(table: QueueBoxTable, limit: number): SqlStatement<BlockedKey[]> {
    return this.statement(`blockedKeys:${table}`, [this.encode.int(limit)], blockedKeysDecoder(table));
  }

  claimsAtRisk(table: QueueBoxTable, withinMs: number, limit: number): SqlStatement<ClaimAtRisk[]> {
    return this.statement(`claimsAtRisk:${table}`, [this.encode.int(withinMs), this.encode.int(limit)], claimsAtRiskDecoder(table));
  }

  databaseNow(): SqlStatement<Date> {
    return this.statement('databaseNow', [], decodeNow);
  }

  pendingWork(): SqlStatement<PendingWorkRow[]> {
    return this.statement('pendingWork', [], decodePendingWork);
  }

  schemaExists(schema: string): SqlStatement<boolean> {
    return this.statement('schemaExists', [this.encode.identifier(schema)], decodePresent);
  }

  tableColumns(): SqlStatement<TableColumns> {
    const { schema, outbox, inbox } = this.tables;
    const e = this.encode;
    return this.statement('tableColumns', [e.identifier(outbox), e.identifier(inbox), ...(schema ? [e.identifier(schema)] : [])], decodeTableColumns);
  }

  dropSchema(): SqlStatement<void> {
    const { schema } = this.tables;
    if (!schema) throw new InvalidArgumentError('schema', noOwnSchema());
    return { sql: this.profile.sql.dropSchema({ ...this.tables, schema }), params: [], decode: decodeNothing };
  }

  private statement<Result>(key: StatementKey, params: unknown[], decode: (rows: readonly DriverRow[]) => Result): SqlStatement<Result> {
    return { sql: this.text[key], params, decode };
  }

  /** A hot statement of the text table. */
  private hot<Result>(key: StatementKey, params: unknown[], decode: (rows: readonly DriverRow[]) => Result): SqlStatement<Result> {
    return this.named(key, this.text[key], params, decode);
  }

  /** A hot statement: named after its text where the dialect prepares, so that every connection plans it once. */
  private named<Result>(key: StatementKey | `completeOne:${ClaimComponent}`, sql: string, params: unknown[], decode: (rows: readonly DriverRow[]) => Result): SqlStatement<Result> {
    if (!this.prepared) return { sql, params, decode };
    this.names[key] ??= `queuebox_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    return { sql, params, name: this.names[key], decode };
  }

  /**
   * One claim: the claim lock where the dialect always takes it or the claimer asked for it; after
   * an idle poll, the dialect's lock-free probe first, where it has one.
   */
  private plan<Row>(
    target: ClaimLockTarget,
    request: ClaimRequest,
    lockAsked: boolean,
    params: unknown[],
    probeParams: unknown[],
    decode: (rows: readonly DriverRow[]) => ClaimResult<Row>,
  ): ClaimPlan<Row> {
    const { claimLock } = this.profile;
    const lock = lockAsked || claimLock.taken === 'always' ? this.lock(claimLockName(this.tables, target, claimLock.maxNameLength)) : undefined;
    const probe = request.afterIdle && this.probes ? { sql: this.probes[`dueProbe:${target.kind}`], params: probeParams, decode: decodeAnyRow } : undefined;
    return { probe, lock, isolation: 'READ COMMITTED', claim: this.hot(CLAIM_KEY[target.kind], params, decode) };
  }

  private lock(name: string): ClaimLock {
    const { setup, acquire, granted } = this.profile.claimLock;
    return {
      setup: setup.map((sql) => ({ sql, params: [], decode: decodeNothing })),
      acquire: { sql: acquire, params: [this.encode.lockName(name)], decode: granted },
    };
  }

  /** The parameters every claim statement starts with: batch, lease, keys to walk, window rows, cursor. */
  private claimParams(request: ClaimRequest): unknown[] {
    const e = this.encode;
    return [e.int(request.batchSize), e.int(request.leaseMs), e.int(request.walkKeys), e.int(request.windowRows), e.key(request.cursor.stream), e.key(request.cursor.key)];
  }

  /** The parameters of the dead-row statements of a filter: after id, limit, stream, error text, dead since, dead before. */
  private pageParams({ afterId, limit, filter }: DeadRowPage): unknown[] {
    const e = this.encode;
    return [e.id(afterId), e.int(limit), e.key(filter.stream), e.text(filter.errorContains), e.instant(filter.deadSince), e.instant(filter.deadBefore)];
  }
}
