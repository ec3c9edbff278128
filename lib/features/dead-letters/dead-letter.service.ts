import { Inject, Injectable, Logger } from '@nestjs/common';
import { StatementRunner } from '../../database/statement-runner.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { DeadLetterNotFoundError } from '../../shared/errors/dead-letter-not-found.error.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import type {
  DeadLetterBatchOptions,
  DeadLetterBatchResult,
  DeadLetterDetail,
  DeadLetterListQuery,
  DeadLetterOf,
  DeadLetterPage,
  DeadLetterSelection,
  QueueBoxTable,
  RowStateRow,
} from '../../shared/interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../shared/interfaces/dead-letter.interface.js';
import { QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { deadLetterNotFound, invalidSelection, tooManyIds } from '../../shared/queuebox.messages.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { type DeadLetterAction, deadLettersByFilter, deadLettersByIds } from './dead-letter-batches.js';
import {
  DEFAULT_PAGE,
  MAX_PAGE,
  checkFilter,
  checkInteger,
  checkRowId,
  checkRowIds,
  checkTable,
} from './operator-input.js';

/** Rows per replay or discard statement: short transactions, a bounded statement. */
const MAX_CHUNK = 1_000;
const DEFAULT_CHUNK = 500;
/** Ids one call may list; more go by filter. */
const MAX_IDS = 10_000;

/**
 * The dead letters of the outbox and the inbox: list them, inspect one, replay or discard them
 * (by ids or by filter), and follow replayed rows until they are delivered. Every method takes the
 * table, `'outbox'` or `'inbox'`. Exported by `QueueBoxModule`: inject it anywhere; the admin API
 * and page (`QueueBoxAdminModule`) and the `queuebox dead` command use it too.
 *
 * Every input is checked before any statement runs: a bad value throws `InvalidArgumentError`
 * whose `field` names it. Replays and discards are logged (table, how the rows were chosen, how
 * many, `actor`), never with payloads.
 * @publicApi
 */
@Injectable()
export class DeadLetterService {
  private readonly logger = new Logger(DeadLetterService.name);

  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly wakeUps: WakeUpHub,
  ) {}

  /**
   * A page of the dead rows of `table` that match the query's filter, oldest first, without
   * payloads. `next` is the `after` of the following page; it is absent when the page was not full.
   * `destination` filters the outbox and `source` the inbox; the other one is refused.
   * @throws InvalidArgumentError `table`, `after`, `limit` (1 to 1000, default 100), or a filter field.
   */
  async list<T extends QueueBoxTable>(
    table: T,
    query: DeadLetterListQuery = {},
  ): Promise<DeadLetterPage<DeadLetterOf<T>>> {
    const checked = checkTable(table);
    const page = {
      filter: checkFilter(checked, query),
      afterId: query.after === undefined ? '0' : checkRowId(query.after, 'after'),
      limit: checkInteger(query.limit, 'limit', 1, MAX_PAGE, DEFAULT_PAGE),
    };
    // Each table lists its dead rows in its own shape (the outbox's message ids, the inbox's idempotency keys).
    const listings: Record<QueueBoxTable, () => Promise<(DeadOutboxMessage | DeadInboxMessage)[]>> = {
      outbox: () => this.runner.run(this.dialect.listDeadOutbox(page)),
      inbox: () => this.runner.run(this.dialect.listDeadInbox(page)),
    };
    const items = (await listings[checked]()) as DeadLetterOf<T>[];
    return items.length === page.limit ? { items, next: items[items.length - 1].id } : { items };
  }

  /**
   * One dead row in full: message id or idempotency key, key, attempts, last error, headers, when
   * it was written and when it died; its payload only with `payload: true`.
   * @throws DeadLetterNotFoundError when the row is not dead (replayed, discarded, purged, never dead).
   * @throws InvalidArgumentError `table` or `id`.
   */
  async inspect(
    table: QueueBoxTable,
    id: string,
    { payload = false }: { payload?: boolean } = {},
  ): Promise<DeadLetterDetail> {
    const checked = checkTable(table);
    const detail = await this.runner.run(this.dialect.inspectDead(checked, checkRowId(id, 'id'), payload === true));
    if (!detail) throw new DeadLetterNotFoundError(checked, id, deadLetterNotFound(checked, id));
    return detail;
  }

  /**
   * Sends dead rows again: listed ids (up to 10,000) or every dead row of a filter. They become
   * pending now with their attempt count back to 0 and the last error kept; an outbox message
   * keeps its `X-Message-Id`. Rows that are not dead are left alone. Runs in chunks of
   * `chunkSize` rows (1 to 1000, default 500), each its own short transaction, in id order, so
   * per-key order holds; replayed rows wake the loops at once.
   * @throws InvalidArgumentError `table`, `selection`, `ids`, `chunkSize`, or a filter field.
   */
  replay(
    table: QueueBoxTable,
    selection: DeadLetterSelection,
    options: DeadLetterBatchOptions = {},
  ): Promise<DeadLetterBatchResult> {
    return this.batch('replay', table, selection, options);
  }

  /**
   * Deletes dead rows, by ids or by filter, in chunks, as `replay` does. Rows that are not dead are
   * left alone.
   * @throws InvalidArgumentError `table`, `selection`, `ids`, `chunkSize`, or a filter field.
   */
  discard(
    table: QueueBoxTable,
    selection: DeadLetterSelection,
    options: DeadLetterBatchOptions = {},
  ): Promise<DeadLetterBatchResult> {
    return this.batch('discard', table, selection, options);
  }

  /**
   * Where rows of `table` are now, by id (up to 1000), in id order: to follow replayed rows until
   * they are `sent` or `processed` (or `dead` again). Rows that no longer exist are not listed.
   * @throws InvalidArgumentError `table` or `ids`.
   */
  async rowStates(table: QueueBoxTable, ids: readonly string[]): Promise<RowStateRow[]> {
    const checked = checkTable(table);
    const listed = checkRowIds(ids);
    if (listed.length > MAX_PAGE) throw new InvalidArgumentError('ids', tooManyIds(MAX_PAGE));
    return listed.length === 0 ? [] : this.runner.run(this.dialect.rowStates(checked, listed));
  }

  private async batch(
    action: DeadLetterAction,
    table: QueueBoxTable,
    selection: DeadLetterSelection,
    options: DeadLetterBatchOptions,
  ): Promise<DeadLetterBatchResult> {
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
      chosen = {
        selection: 'filter',
        filter: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null)),
      };
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
