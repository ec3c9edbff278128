import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { StatementRunner } from '../../database/statement-runner.js';
import { DeadLetterService } from '../dead-letters/dead-letter.service.js';
import { warnDeprecatedOnce } from '../dead-letters/warn-deprecated-once.js';
import { ReceiveRacedError } from '../../shared/errors/receive-raced.error.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import type { DeadInboxMessage, DeadLetterQuery } from '../../shared/interfaces/dead-letter.interface.js';
import type { InboxMessageInput, InboxReceipt } from '../../shared/interfaces/inbox-message.interface.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { receiveRaced } from '../../shared/queuebox.messages.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';
import { toInboxRow } from './validate-inbox-message.js';

/** Inserts tried when a duplicate's row keeps vanishing between the insert and the read (a retention sweep each time). */
const MAX_RECEIVE_ATTEMPTS = 3;

/** Options of `InboxService.receive`. @publicApi */
export interface ReceiveOptions {
  /** Store the message in this open transaction; autocommit when omitted. */
  manager?: EntityManager;
  /** The payload's JSON text when the caller already has it (it must be valid JSON). */
  serializedPayload?: string;
}

/** Stores received messages once per (source, idempotency key). @publicApi */
@Injectable()
export class InboxService {
  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly wakeUps: WakeUpHub,
    private readonly metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    private readonly deadLetters: DeadLetterService,
  ) {}

  /**
   * Stores a received message. A second receive of the same (source, idempotency key) is a
   * duplicate: nothing is written, no error is thrown, and the receipt says `duplicate`.
   * Concurrent receives of one key store exactly one row. Invalid input (missing or oversize
   * keys, an undeclared source, an oversize payload) throws a typed error before any write.
   * `ReceiveRacedError`: the key's row was deleted by retention between the insert and the
   * read-back on every try; nothing was stored, retry.
   */
  async receive(
    message: InboxMessageInput,
    { manager, serializedPayload }: ReceiveOptions = {},
  ): Promise<InboxReceipt> {
    let row;
    try {
      row = toInboxRow(message, this.options.inbox, serializedPayload);
    } catch (error) {
      this.metrics.inboxReceived(this.labels.of(message?.source), 'rejected');
      throw error;
    }
    // An insert that conflicts found the row; the follow-up read can still miss it when the
    // retention sweeper deleted it in between. The dedup record is gone then, so the next insert
    // stores the message as new, exactly as a redelivery after retention would.
    for (let attempt = 1; ; attempt++) {
      const inserted = await this.runner.run(this.dialect.insertInbox(row), manager);
      if (inserted !== undefined) {
        this.wakeUps.rowsWritten('inbox', manager);
        this.metrics.inboxReceived(this.labels.of(row.source), 'accepted');
        return { status: 'accepted', id: inserted };
      }
      const existing = await this.runner.run(this.dialect.findInbox(row.source, row.idempotencyKey), manager);
      if (existing !== undefined) {
        this.metrics.inboxReceived(this.labels.of(row.source), 'duplicate');
        return { status: 'duplicate', id: existing };
      }
      if (attempt === MAX_RECEIVE_ATTEMPTS)
        throw new ReceiveRacedError(row.source, row.idempotencyKey, attempt, receiveRaced(attempt));
    }
  }

  /**
   * Dead-lettered inbox messages, oldest first, a page at a time (`after` = last id of the previous page).
   * @deprecated Use `DeadLetterService.list('inbox', query)`: the same rows as `{ items, next? }`,
   * with filters. Logs a warning the first time it is called in a process.
   */
  async listDead(query: DeadLetterQuery = {}): Promise<DeadInboxMessage[]> {
    warnDeprecatedOnce('InboxService.listDead', "DeadLetterService.list('inbox', query)");
    return (await this.deadLetters.list('inbox', { after: query.after, limit: query.limit })).items;
  }

  /**
   * Hands dead inbox messages to the relay or pull workers again; returns the ids that were dead.
   * @deprecated Use `DeadLetterService.replay('inbox', { ids })`: the ids are its result's `ids`.
   * Logs a warning the first time it is called in a process.
   */
  async replayDead(ids: readonly string[]): Promise<string[]> {
    warnDeprecatedOnce('InboxService.replayDead', "DeadLetterService.replay('inbox', { ids })");
    const { ids: replayed = [] } = await this.deadLetters.replay('inbox', { ids });
    return replayed;
  }
}
