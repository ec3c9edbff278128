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

const MAX_CHUNK = 1_000;
const DEFAULT_CHUNK = 500;
const MAX_IDS = 10_000;

/**
 * The dead letters of the outbox and the inbox: list, inspect, replay or discard them (by ids or by
 * filter), and follow replayed rows. Exported by `QueueBoxModule`. Inputs are checked before any
 * statement runs (`InvalidArgumentError` naming the `field`); replays and discards are logged
 * without payloads.
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
   * A page of the dead rows of `table` matching the filter, oldest first, without payloads; `next`
   * is the following page's `after`. `destination` filters the outbox, `source` the inbox.
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
    const listings: Record<QueueBoxTable, () => Promise<(DeadOutboxMessage | DeadInboxMessage)[]>> = {
      outbox: () => this.runner.run(this.dialect.listDeadOutbox(page)),
      inbox: () => this.runner.run(this.dialect.listDeadInbox(page)),
    };
    const items = (await listings[checked]()) as DeadLetterOf<T>[];
    return items.length === page.limit ? { items, next: items[items.length - 1].id } : { items };
  }

  /**
   * One dead row in full; its payload only with `payload: true`.
   * @throws DeadLetterNotFoundError when the row is not dead.
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
   * Sends dead rows again: listed ids (up to 10,000) or a filter. They become pending now, attempts
   * back to 0, last error kept; rows not dead are left alone. Chunks of `chunkSize` (1 to 1000,
   * default 500) in id order, each its own transaction, so per-key order holds.
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
   * Deletes dead rows, by ids or by filter, in chunks, as `replay` does.
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
   * Where rows of `table` are now, by id (up to 1000), in id order; rows gone are not listed.
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
    // A replayed row is claimable at once: wake the loops here and in other replicas.
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
