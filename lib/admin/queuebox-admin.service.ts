import { Inject, Injectable, Logger } from '@nestjs/common';
import { StatementRunner } from '../database/statement-runner.js';
import type { SqlDialect } from '../database/sql-dialect.interface.js';
import { DeadLetterNotFoundError } from '../errors/dead-letter-not-found.error.js';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import { InboxRelay } from '../inbox/inbox-relay.js';
import type {
  Backlog,
  BlockedKey,
  ClaimsAtRisk,
  DeadLetterBatchOptions,
  DeadLetterBatchResult,
  DeadLetterDetail,
  DeadLetterListQuery,
  DeadLetterOf,
  DeadLetterPage,
  DeadLetterSelection,
  LoopSnapshot,
  QueueBoxTable,
  RowStateRow,
} from '../interfaces/admin.interface.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { OutboxPoller } from '../outbox/outbox-poller.js';
import { PullWorkerExplorer } from '../pull/pull-worker.explorer.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { deadLetterNotFound, invalidSelection, tooManyIds } from '../queuebox.messages.js';
import { RetentionSweeper } from '../retention/retention-sweeper.js';
import { WakeUpHub } from '../wakeup/wake-up.hub.js';
import { checkFilter, checkInteger, checkRowId, checkRowIds, checkTable } from './admin-input.js';
import { type DeadLetterAction, deadLettersByFilter, deadLettersByIds } from './dead-letter-batches.js';
import { loopSnapshot } from './loop-snapshot.js';
import { settleAll } from '../engine/settle-all.js';

const MAX_PAGE = 1_000;
const DEFAULT_PAGE = 100;
/** Rows per replay or discard statement: short transactions, a bounded statement. */
const MAX_CHUNK = 1_000;
const DEFAULT_CHUNK = 500;
/** Ids one call may list; more go by filter. */
const MAX_IDS = 10_000;
/** The window of "about to expire" when none is asked for. */
const DEFAULT_AT_RISK_MS = 30_000;
const MAX_AT_RISK_MS = 86_400_000;

/**
 * What an operator needs to see and do, without SQL: the loops of this replica, the backlog,
 * the keys that stall, the claims at risk, and the dead letters of both tables (list, inspect,
 * replay, discard). Every read of rows goes through the dialect, on both databases. Inject it
 * anywhere in the application; `QueueBoxAdminModule` serves it over HTTP.
 *
 * Mutations are logged (what, how many, who: `actor`), never with payloads.
 * @publicApi
 */
@Injectable()
export class QueueBoxAdmin {
  private readonly logger = new Logger(QueueBoxAdmin.name);

  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly wakeUps: WakeUpHub,
    private readonly poller: OutboxPoller,
    private readonly relay: InboxRelay,
    private readonly pullWorkers: PullWorkerExplorer,
    private readonly sweeper: RetentionSweeper,
  ) {}

  /** Whether this replica runs loops at all (`workers.enabled`): an API-only replica has none running. */
  get workersEnabled(): boolean {
    return this.options.workersEnabled;
  }

  /**
   * Every loop of this replica: the outbox poller, the inbox relay (when routes exist), each pull
   * worker, and the retention sweeper (when a retention age is set).
   */
  loops(): LoopSnapshot[] {
    const loops = [loopSnapshot('outbox', 'outbox', this.options.outbox.pollIntervalMs, this.poller.status)];
    if (this.options.inbox.relay.routes.size > 0) loops.push(loopSnapshot('relay', 'relay', this.options.inbox.relay.pollIntervalMs, this.relay.status));
    for (const worker of this.pullWorkers.workers) loops.push(loopSnapshot(`pull:${worker.source}`, 'pull', worker.pollIntervalMs, worker.status, worker.source));
    const retention = this.sweeper.loopStatus;
    if (retention.enabled) loops.push(loopSnapshot('retention', 'retention', retention.intervalMs, retention));
    return loops;
  }

  /** Pending rows and the oldest pending age per destination and per inbox source (database clock). */
  async backlog(): Promise<Backlog> {
    const [outbox, inbox] = await settleAll([this.runner.run(this.dialect.outboxBacklog()), this.runner.run(this.dialect.inboxBacklog())]);
    const entries = (rows: typeof outbox) => rows.map((row) => ({ name: row.label, pending: row.pending, oldestAgeSeconds: row.oldestAgeSeconds }));
    return { outbox: entries(outbox), inbox: entries(inbox) };
  }

  /** Keys whose head row is retrying or dead, oldest first, at most `limit` (1–1000, default 100) per table. */
  async blockedKeys({ limit }: { limit?: number } = {}): Promise<BlockedKey[]> {
    const max = checkInteger(limit, 'limit', 1, MAX_PAGE, DEFAULT_PAGE);
    const [outbox, inbox] = await settleAll([this.runner.run(this.dialect.blockedKeys('outbox', max)), this.runner.run(this.dialect.blockedKeys('inbox', max))]);
    return [...outbox, ...inbox];
  }

  /**
   * Leases that end within `withinMs` (default 30 s) or already ended, from the database, and the
   * claims this replica's loops lost recently.
   */
  async claimsAtRisk({ withinMs, limit }: { withinMs?: number; limit?: number } = {}): Promise<ClaimsAtRisk> {
    const window = checkInteger(withinMs, 'withinMs', 0, MAX_AT_RISK_MS, DEFAULT_AT_RISK_MS);
    const max = checkInteger(limit, 'limit', 1, MAX_PAGE, DEFAULT_PAGE);
    const [outbox, inbox] = await settleAll([
      this.runner.run(this.dialect.claimsAtRisk('outbox', window, max)),
      this.runner.run(this.dialect.claimsAtRisk('inbox', window, max)),
    ]);
    const lost = this.loops().flatMap((loop) => loop.lostClaims.map((claim) => ({ ...claim, loop: loop.name })));
    return { expiring: [...outbox, ...inbox].sort((a, b) => a.expiresInMs - b.expiresInMs), lost };
  }

  /** A page of dead letters of `table` matching the query's filter, oldest first; `next` pages on. */
  async listDead<T extends QueueBoxTable>(table: T, query: DeadLetterListQuery = {}): Promise<DeadLetterPage<DeadLetterOf<T>>> {
    const checked = checkTable(table);
    const page = {
      filter: checkFilter(checked, query),
      afterId: query.after === undefined ? '0' : checkRowId(query.after, 'after'),
      limit: checkInteger(query.limit, 'limit', 1, MAX_PAGE, DEFAULT_PAGE),
    };
    const rows = checked === 'outbox' ? await this.runner.run(this.dialect.listDeadOutbox(page)) : await this.runner.run(this.dialect.listDeadInbox(page));
    const items = rows as DeadLetterOf<T>[];
    return items.length === page.limit ? { items, next: items[items.length - 1].id } : { items };
  }

  /** One dead letter in full; its payload only with `payload: true`. Throws `DeadLetterNotFoundError` when it is not dead. */
  async inspectDead(table: QueueBoxTable, id: string, { payload = false }: { payload?: boolean } = {}): Promise<DeadLetterDetail> {
    const checked = checkTable(table);
    const detail = await this.runner.run(this.dialect.inspectDead(checked, checkRowId(id, 'id'), payload === true));
    if (!detail) throw new DeadLetterNotFoundError(checked, id, deadLetterNotFound(checked, id));
    return detail;
  }

  /**
   * Where rows are now, by id (up to 1000): to follow replayed rows until they are sent or
   * processed. Rows that no longer exist are not listed.
   */
  async rowStates(table: QueueBoxTable, ids: readonly string[]): Promise<RowStateRow[]> {
    const checked = checkTable(table);
    const listed = checkRowIds(ids);
    if (listed.length > MAX_PAGE) throw new InvalidArgumentError('ids', tooManyIds(MAX_PAGE));
    return listed.length === 0 ? [] : this.runner.run(this.dialect.rowStates(checked, listed));
  }

  /**
   * Sends dead letters again: listed ids, or every dead row of a filter, in chunks (each its own
   * short transaction, in id order, so per-key order holds). They become pending now with a fresh
   * attempt count, keeping their message id; rows that are not dead are left alone.
   */
  replayDead(table: QueueBoxTable, selection: DeadLetterSelection, options: DeadLetterBatchOptions = {}): Promise<DeadLetterBatchResult> {
    return this.batch('replay', table, selection, options);
  }

  /** Deletes dead letters: listed ids, or every dead row of a filter, in chunks. Rows that are not dead are left alone. */
  discardDead(table: QueueBoxTable, selection: DeadLetterSelection, options: DeadLetterBatchOptions = {}): Promise<DeadLetterBatchResult> {
    return this.batch('discard', table, selection, options);
  }

  private async batch(action: DeadLetterAction, table: QueueBoxTable, selection: DeadLetterSelection, options: DeadLetterBatchOptions): Promise<DeadLetterBatchResult> {
    const checked = checkTable(table);
    const chunkSize = checkInteger(options.chunkSize, 'chunkSize', 1, MAX_CHUNK, DEFAULT_CHUNK);
    // A replayed row is claimable at once: wake this replica's loops (and others', through the
    // cross-replica transport) instead of waiting for their next poll.
    const onChunk = () => {
      if (action === 'replay') this.wakeUps.rowsWritten(checked);
    };
    let result: DeadLetterBatchResult;
    let chosen: Record<string, unknown>;
    if (selection && 'ids' in selection) {
      const ids = checkRowIds(selection.ids);
      if (ids.length > MAX_IDS) throw new InvalidArgumentError('ids', tooManyIds(MAX_IDS));
      result = await deadLettersByIds(this.runner, this.dialect, action, checked, ids, chunkSize, onChunk);
      chosen = { selection: 'ids', idsListed: ids.length };
    } else if (selection && 'filter' in selection) {
      const filter = checkFilter(checked, selection.filter);
      result = await deadLettersByFilter(this.runner, this.dialect, action, checked, filter, chunkSize, onChunk);
      // The operator's own filter values: names and error fragments, never message contents.
      chosen = { selection: 'filter', filter: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null)) };
    } else {
      throw new InvalidArgumentError('selection', invalidSelection());
    }
    this.logger.log(action === 'replay' ? 'dead letters replayed' : 'dead letters discarded', {
      table: checked,
      ...chosen,
      count: result.count,
      chunks: result.chunks,
      actor: options.actor ?? 'application',
    });
    return result;
  }
}
