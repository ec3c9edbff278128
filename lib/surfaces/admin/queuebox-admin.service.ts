import { Inject, Injectable } from '@nestjs/common';
import { StatementRunner } from '../../database/statement-runner.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { InboxRelay } from '../../features/inbox/inbox-relay.js';
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
} from '../../shared/interfaces/admin.interface.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { OutboxPoller } from '../../features/outbox/outbox-poller.js';
import { PullWorkerExplorer } from '../../features/pull/pull-worker.explorer.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { RetentionSweeper } from '../../features/retention/retention-sweeper.js';
import { DEFAULT_PAGE, MAX_PAGE, checkInteger } from '../../features/dead-letters/operator-input.js';
import { DeadLetterService } from '../../features/dead-letters/dead-letter.service.js';
import { warnDeprecatedOnce } from '../../features/dead-letters/warn-deprecated-once.js';
import { loopSnapshot } from './loop-snapshot.js';
import { settleAll } from '../../engine/settle-all.js';
import { CLAIMERS, loopName } from '../../shared/queuebox.claimers.js';

/** The window of "about to expire" when none is asked for. */
const DEFAULT_AT_RISK_MS = 30_000;
const MAX_AT_RISK_MS = 86_400_000;

/**
 * What an operator needs to see without SQL: the loops of this replica, the backlog, the keys
 * that stall and the claims at risk. Every read of rows goes through the dialect, on both
 * databases. Inject it anywhere in the application; `QueueBoxAdminModule` serves it over HTTP.
 * Dead letters are `DeadLetterService`'s: the dead-letter methods here are deprecated.
 * @publicApi
 */
@Injectable()
export class QueueBoxAdmin {
  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly deadLetters: DeadLetterService,
    private readonly poller: OutboxPoller,
    private readonly relay: InboxRelay,
    private readonly pullWorkers: PullWorkerExplorer,
    private readonly sweeper: RetentionSweeper,
  ) {}

  /** Whether this replica runs loops at all (`workers.enabled`): an API-only replica has none running. */
  get workersEnabled(): boolean {
    return this.options.workers.enabled;
  }

  /**
   * Every loop of this replica: the outbox poller, the inbox relay (when routes exist), each pull
   * worker, and the retention sweeper (when a retention age is set).
   */
  loops(): LoopSnapshot[] {
    const { outbox, relay, pull } = CLAIMERS;
    const loops = [
      loopSnapshot(loopName(outbox), outbox.component, this.options.outbox.pollIntervalMs, this.poller.status),
    ];
    if (this.options.inbox.relay.routes.size > 0)
      loops.push(
        loopSnapshot(loopName(relay), relay.component, this.options.inbox.relay.pollIntervalMs, this.relay.status),
      );
    for (const worker of this.pullWorkers.workers)
      loops.push(
        loopSnapshot(
          loopName(pull, worker.source),
          pull.component,
          worker.pollIntervalMs,
          worker.status,
          worker.source,
        ),
      );
    const retention = this.sweeper.loopStatus;
    if (retention.enabled) loops.push(loopSnapshot('retention', 'retention', retention.intervalMs, retention));
    return loops;
  }

  /** Pending rows and the oldest pending age per destination and per inbox source (database clock). */
  async backlog(): Promise<Backlog> {
    const [outbox, inbox] = await settleAll([
      this.runner.run(this.dialect.outboxBacklog()),
      this.runner.run(this.dialect.inboxBacklog()),
    ]);
    const entries = (rows: typeof outbox) =>
      rows.map((row) => ({ name: row.label, pending: row.pending, oldestAgeSeconds: row.oldestAgeSeconds }));
    return { outbox: entries(outbox), inbox: entries(inbox) };
  }

  /** Keys whose head row is retrying or dead, oldest first, at most `limit` (1–1000, default 100) per table. */
  async blockedKeys({ limit }: { limit?: number } = {}): Promise<BlockedKey[]> {
    const max = checkInteger(limit, 'limit', 1, MAX_PAGE, DEFAULT_PAGE);
    const [outbox, inbox] = await settleAll([
      this.runner.run(this.dialect.blockedKeys('outbox', max)),
      this.runner.run(this.dialect.blockedKeys('inbox', max)),
    ]);
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

  /**
   * A page of dead letters of `table` matching the query's filter, oldest first; `next` pages on.
   * @deprecated Use `DeadLetterService.list(table, query)` (the same arguments and result). Logs a
   * warning the first time it is called in a process.
   */
  listDead<T extends QueueBoxTable>(
    table: T,
    query: DeadLetterListQuery = {},
  ): Promise<DeadLetterPage<DeadLetterOf<T>>> {
    warnDeprecatedOnce('QueueBoxAdmin.listDead', 'DeadLetterService.list(table, query)');
    return this.deadLetters.list(table, query);
  }

  /**
   * One dead letter in full; its payload only with `payload: true`. Throws `DeadLetterNotFoundError` when it is not dead.
   * @deprecated Use `DeadLetterService.inspect(table, id, options)` (the same arguments and
   * result). Logs a warning the first time it is called in a process.
   */
  inspectDead(table: QueueBoxTable, id: string, options: { payload?: boolean } = {}): Promise<DeadLetterDetail> {
    warnDeprecatedOnce('QueueBoxAdmin.inspectDead', 'DeadLetterService.inspect(table, id, options)');
    return this.deadLetters.inspect(table, id, options);
  }

  /**
   * Where rows are now, by id (up to 1000): to follow replayed rows until they are sent or
   * processed. Rows that no longer exist are not listed.
   * @deprecated Use `DeadLetterService.rowStates(table, ids)` (the same arguments and result).
   * Logs a warning the first time it is called in a process.
   */
  rowStates(table: QueueBoxTable, ids: readonly string[]): Promise<RowStateRow[]> {
    warnDeprecatedOnce('QueueBoxAdmin.rowStates', 'DeadLetterService.rowStates(table, ids)');
    return this.deadLetters.rowStates(table, ids);
  }

  /**
   * Sends dead letters again: listed ids, or every dead row of a filter, in chunks.
   * @deprecated Use `DeadLetterService.replay(table, selection, options)` (the same arguments and
   * result). Logs a warning the first time it is called in a process.
   */
  replayDead(
    table: QueueBoxTable,
    selection: DeadLetterSelection,
    options: DeadLetterBatchOptions = {},
  ): Promise<DeadLetterBatchResult> {
    warnDeprecatedOnce('QueueBoxAdmin.replayDead', 'DeadLetterService.replay(table, selection, options)');
    return this.deadLetters.replay(table, selection, options);
  }

  /**
   * Deletes dead letters: listed ids, or every dead row of a filter, in chunks.
   * @deprecated Use `DeadLetterService.discard(table, selection, options)` (the same arguments and
   * result). Logs a warning the first time it is called in a process.
   */
  discardDead(
    table: QueueBoxTable,
    selection: DeadLetterSelection,
    options: DeadLetterBatchOptions = {},
  ): Promise<DeadLetterBatchResult> {
    warnDeprecatedOnce('QueueBoxAdmin.discardDead', 'DeadLetterService.discard(table, selection, options)');
    return this.deadLetters.discard(table, selection, options);
  }
}
