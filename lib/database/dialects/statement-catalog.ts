import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type ConnectionPooling, SESSION_PER_CONNECTION } from '../connection-pooling.js';
import {
  claimDecoder,
  decodeAnyRow,
  decodeInboxRow,
  decodeInsertedOutbox,
  decodeNothing,
  decodeOutboxRow,
} from '../decode-rows.js';
import type { Decoder, StatementMethods } from '../statement-definition.js';
import { CLAIM_COMPONENTS } from '../../shared/queuebox.claimers.js';
import { statements, type Statements } from '../statements.js';
import { errorText } from '../../shared/errors/error-text.js';
import type { CommitWakeUp, WakeUpTransport } from '../../shared/interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import { noOwnSchema, preparedStatementLost } from '../../shared/queuebox.messages.js';
import { claimLockName, type ClaimLockTarget } from './claim-lock-names.js';
import type { DialectName } from './dialect-registry.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, type DiscardConnection, StatementDeadlines } from './statement-deadline.js';
import type { DialectProfile } from './dialect-profile.interface.js';
import type { ParameterEncoders } from '../parameter-encoders.interface.js';
import { preparedName, statementMethods, withOwnMethods, type Preparing } from './statement-methods.js';
import type {
  ClaimComponent,
  ClaimLock,
  ClaimOptions,
  ClaimPlan,
  ClaimRequest,
  OutboxInsertRow,
  SqlDialect,
  SqlStatement,
} from '../sql-dialect.interface.js';
import type {
  ClaimedInboxRow,
  ClaimedOutboxRow,
  ClaimResult,
  DatabaseErrorKind,
  DatabaseFacts,
  DriverRow,
  InsertedOutboxRow,
} from '../statement-results.js';
import type { StatementConnection } from '../statement-connection.js';

const decodeClaimedOutbox = claimDecoder(decodeOutboxRow);
const decodeClaimedInbox = claimDecoder(decodeInboxRow);

/** What the catalog is built with besides the profile and the tables. */
export interface CatalogOptions {
  /** Name the hot statements where the dialect `prepares` (default true); off behind a transaction-mode pooler. */
  prepared?: boolean;
  /** The client-side deadline of every statement, in ms (`statementTimeoutMs`; default 30 000). */
  statementTimeoutMs?: number;
}

interface HotText {
  readonly sql: string;
  readonly name: string | undefined;
}

interface InsertTexts {
  readonly insertOutboxOne: string;
  readonly insertOutbox: string;
}

/**
 * Every statement of `SqlDialect`, once, for any dialect: methods built from the definitions
 * (statements.ts), plus the composites no definition describes (`insertOutbox`'s forms, the claim
 * plans, `startupProbe`, `dropSchema`). Databases differ only by the capabilities their profile
 * states, never by a branch on a database's name.
 */
export class StatementCatalog extends withOwnMethods<StatementMethods<Statements>>() implements SqlDialect {
  private readonly inserts: InsertTexts;
  private readonly notifying?: InsertTexts;
  private readonly claims: Readonly<Record<ClaimComponent, HotText>>;
  private readonly probes?: Readonly<Record<ClaimComponent, string>>;
  private readonly encode: ParameterEncoders;
  private readonly preparing: Preparing;
  private poolingFound: ConnectionPooling = SESSION_PER_CONNECTION;
  private readonly logger = new Logger('QueueBox');
  private readonly statementTimeoutMs: number;
  private readonly deadlines: StatementDeadlines;

  constructor(
    readonly profile: DialectProfile<DialectName>,
    readonly tables: ResolvedTableNames,
    options: CatalogOptions = {},
  ) {
    const { texts } = profile;
    const preparing: Preparing = { prepared: profile.prepares && (options.prepared ?? true) };
    super(
      statementMethods(statements, {
        texts,
        encode: profile.encode,
        tables,
        asyncCommit: profile.asyncCommit,
        preparing,
      }),
    );
    this.preparing = preparing;
    this.encode = profile.encode;
    this.inserts = { insertOutboxOne: texts.insertOutboxOne(tables), insertOutbox: texts.insertOutbox(tables) };
    const notifying = texts.notifyingInserts;
    this.notifying = notifying && {
      insertOutboxOne: notifying.insertOutboxOne(tables),
      insertOutbox: notifying.insertOutbox(tables),
    };
    const hot = (sql: string): HotText => ({ sql, name: preparing.prepared ? preparedName(sql) : undefined });
    this.claims = {
      outbox: hot(texts.claimOutbox(tables)),
      relay: hot(texts.claimInbox(tables)),
      pull: hot(texts.claimPull(tables)),
    };
    const { dueProbe } = texts;
    this.probes =
      dueProbe &&
      (Object.fromEntries(CLAIM_COMPONENTS.map((kind) => [kind, dueProbe(tables, kind)])) as Record<
        ClaimComponent,
        string
      >);
    this.statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.deadlines = new StatementDeadlines(this.statementTimeoutMs);
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

  execute(runner: StatementConnection, statement: SqlStatement): Promise<DriverRow[]> {
    const running = this.bounded(runner, () => this.profile.execute(runner, statement));
    return statement.name ? running.catch((error: unknown) => this.unprepared(runner, statement, error)) : running;
  }

  get pooling(): ConnectionPooling {
    return this.poolingFound;
  }

  async probePooling(dataSource: DataSource): Promise<ConnectionPooling> {
    const probe = this.profile.probePooling;
    if (probe)
      this.poolingFound = await probe(dataSource, {
        statementTimeoutMs: this.statementTimeoutMs,
        discard: this.profile.discardConnection,
      });
    return this.poolingFound;
  }

  stopPreparing(): void {
    this.preparing.prepared = false;
  }

  /**
   * A named statement the session does not know: the connection moved backend since preparing, so
   * connections are pooled per transaction whatever the start-up probe saw. Every hot statement runs
   * unnamed from now on (said once). Outside a transaction it runs again; inside one the error stands.
   */
  private unprepared(runner: StatementConnection, statement: SqlStatement, error: unknown): Promise<DriverRow[]> {
    if (this.profile.classifyError(error) !== 'prepared-statement-lost') throw error;
    if (this.preparing.prepared) {
      this.preparing.prepared = false;
      this.poolingFound = { sessionPerTransaction: true, preparedStatementsKept: false };
      this.logger.warn(preparedStatementLost(errorText(error)));
    }
    if (runner.isTransactionActive) throw error;
    return this.bounded(runner, () => this.profile.execute(runner, { ...statement, name: undefined }));
  }

  /** `withinDeadline`, on the catalog's one deadline timer. */
  async bounded<T>(runner: StatementConnection, work: () => Promise<T>): Promise<T> {
    const discard: DiscardConnection | undefined = this.profile.discardConnection;
    if (!discard) return work();
    // The deadline is the database's answer, not the wait for a pooled connection: a runner given
    // up while the pool was still connecting it would get its connection later, and keep it.
    if (!runner.isReleased) await runner.connect();
    return this.deadlines.run((running) => discard(runner, running), work);
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    return this.profile.classifyError(error);
  }

  discardConnection(runner: StatementConnection): void {
    this.profile.discardConnection?.(runner);
  }

  autocommitConnection(dataSource: DataSource): StatementConnection {
    return this.profile.autocommitConnection?.(dataSource) ?? dataSource.createQueryRunner();
  }

  createWakeUpTransport(dataSource: DataSource, instanceId: string, listenUrl?: string): WakeUpTransport | undefined {
    return this.profile.wakeUp?.transport(
      dataSource,
      this.tables,
      instanceId,
      { statementTimeoutMs: this.statementTimeoutMs, discard: this.profile.discardConnection },
      listenUrl,
    );
  }

  startupProbe(): SqlStatement<DatabaseFacts> | undefined {
    const probe = this.profile.startupProbe;
    return probe ? { sql: probe.text, params: [], decode: probe.decode } : undefined;
  }

  insertOutbox(rows: readonly OutboxInsertRow[], wakeUp?: CommitWakeUp): SqlStatement<InsertedOutboxRow[]> {
    const e = this.encode;
    const texts = wakeUp && this.notifying ? this.notifying : this.inserts;
    const wakeParams = wakeUp && this.notifying ? [e.text(wakeUp.channel), e.text(wakeUp.sender)] : [];
    if (rows.length === 1 && rows[0].delayMs === 0) {
      const [row] = rows;
      const params = [
        e.uuid(row.messageId),
        e.key(row.destination),
        e.key(row.key),
        e.text(row.headers),
        e.text(row.payload),
        ...wakeParams,
      ];
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

  claimOutbox(
    destinations: readonly string[],
    request: ClaimRequest,
    options: ClaimOptions,
  ): ClaimPlan<ClaimedOutboxRow> {
    const params = [...this.claimParams(request), this.encode.keys(destinations)];
    if (this.profile.asyncCommit) params.push(this.encode.flag(options.asyncCommit === true));
    return this.plan(
      { kind: 'outbox' },
      request,
      options.lock,
      params,
      [this.encode.keys(destinations)],
      decodeClaimedOutbox,
    );
  }

  claimInbox(sources: readonly string[], request: ClaimRequest): ClaimPlan<ClaimedInboxRow> {
    const params = [...this.claimParams(request), this.encode.keys(sources)];
    return this.plan({ kind: 'relay' }, request, true, params, [this.encode.keys(sources)], decodeClaimedInbox);
  }

  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): ClaimPlan<ClaimedInboxRow> {
    const params = [
      ...this.claimParams({ ...request, cursor: { stream: source, key: request.cursor.key } }),
      this.encode.keys([source]),
    ];
    return this.plan(
      { kind: 'pull', source },
      request,
      options.lock,
      params,
      [this.encode.key(source)],
      decodeClaimedInbox,
    );
  }

  dropSchema(): SqlStatement<void> {
    const { schema } = this.tables;
    if (!schema) throw new InvalidArgumentError('schema', noOwnSchema());
    return { sql: this.profile.texts.dropSchema({ ...this.tables, schema }), params: [], decode: decodeNothing };
  }

  /** One claim: the claim lock where always taken or asked for; after an idle poll, the probe first. */
  private plan<Row>(
    target: ClaimLockTarget,
    request: ClaimRequest,
    lockAsked: boolean,
    params: unknown[],
    probeParams: unknown[],
    decode: Decoder<ClaimResult<Row>>,
  ): ClaimPlan<Row> {
    const { claimLock } = this.profile;
    const lock =
      lockAsked || claimLock.taken === 'always'
        ? this.lock(claimLockName(this.tables, target, claimLock.maxNameLength))
        : undefined;
    const probe =
      request.afterIdle && this.probes
        ? { sql: this.probes[target.kind], params: probeParams, decode: decodeAnyRow }
        : undefined;
    const { sql, name } = this.claims[target.kind];
    const claim =
      this.preparing.prepared && name !== undefined ? { sql, params, name, decode } : { sql, params, decode };
    return { probe, lock, isolation: 'READ COMMITTED', claim };
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
    return [
      e.int(request.batchSize),
      e.int(request.leaseMs),
      e.int(request.walkKeys),
      e.int(request.windowRows),
      e.key(request.cursor.stream),
      e.key(request.cursor.key),
    ];
  }
}
