import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { StatementRunner } from '../../database/statement-runner.js';
import { DeadLetterService } from '../dead-letters/dead-letter.service.js';
import { warnDeprecatedOnce } from '../dead-letters/warn-deprecated-once.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import type { DeadLetterQuery, DeadOutboxMessage } from '../../shared/interfaces/dead-letter.interface.js';
import type { EnqueuedMessage, OutboxMessageInput } from '../../shared/interfaces/outbox-message.interface.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { CreateSpans } from '../../shared/tracing/create-spans.js';
import { messagingTracer } from '../../shared/tracing/messaging-tracer.js';
import { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';
import { insertOutboxRows } from './insert-outbox-rows.js';
import { toOutboxRow } from './validate-outbox-message.js';

/** Options of `OutboxService.enqueue`. @publicApi */
export interface EnqueueOptions {
  /**
   * The EntityManager of your open transaction (`dataSource.transaction(async (manager) => …)`).
   * The messages are written in it: nothing is published unless it commits. Without it each
   * call commits on its own.
   */
  manager?: EntityManager;
}

/** Writes messages to the outbox in the caller's transaction. @publicApi */
@Injectable()
export class OutboxService {
  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly wakeUps: WakeUpHub,
    private readonly deadLetters: DeadLetterService,
  ) {}

  /**
   * Enqueues one message, or several in one statement. Every message is validated first: an
   * unknown destination, a payload that cannot be serialized or is over
   * `outbox.maxPayloadBytes`, an invalid key or header throws a typed error and writes nothing.
   * The active W3C trace context is stored with each message; with an OpenTelemetry SDK
   * registered, each message gets a `create` span in the caller's trace and stores its context.
   */
  enqueue<TPayload>(message: OutboxMessageInput<TPayload>, options?: EnqueueOptions): Promise<EnqueuedMessage>;
  enqueue<TPayload>(
    messages: readonly OutboxMessageInput<TPayload>[],
    options?: EnqueueOptions,
  ): Promise<EnqueuedMessage[]>;
  async enqueue(
    input: OutboxMessageInput | readonly OutboxMessageInput[],
    { manager }: EnqueueOptions = {},
  ): Promise<EnqueuedMessage | EnqueuedMessage[]> {
    const single = !Array.isArray(input);
    const messages: readonly OutboxMessageInput[] = single
      ? [input as OutboxMessageInput]
      : (input as readonly OutboxMessageInput[]);
    const tracer = messagingTracer();
    const spans = tracer && new CreateSpans(tracer);
    let result: EnqueuedMessage[];
    try {
      const rows = messages.map((message, index) =>
        toOutboxRow(message, this.options, single ? undefined : index, undefined, spans),
      );
      result = await insertOutboxRows(this.runner, this.dialect, this.wakeUps, rows, manager);
    } catch (error) {
      spans?.endAll(error);
      throw error;
    }
    spans?.endAll();
    return single ? result[0] : result;
  }

  /**
   * Dead-lettered messages, oldest first, a page at a time (`after` = last id of the previous page).
   * @deprecated Use `DeadLetterService.list('outbox', query)`: the same rows as `{ items, next? }`,
   * with filters. Logs a warning the first time it is called in a process.
   */
  async listDead(query: DeadLetterQuery = {}): Promise<DeadOutboxMessage[]> {
    warnDeprecatedOnce('OutboxService.listDead', "DeadLetterService.list('outbox', query)");
    return (await this.deadLetters.list('outbox', { after: query.after, limit: query.limit })).items;
  }

  /**
   * Sends dead messages again: they become pending now with a fresh attempt count, keeping their
   * `X-Message-Id`. Returns the ids that were dead (others are left alone).
   * @deprecated Use `DeadLetterService.replay('outbox', { ids })`: the ids are its result's `ids`.
   * Logs a warning the first time it is called in a process.
   */
  async replayDead(ids: readonly string[]): Promise<string[]> {
    warnDeprecatedOnce('OutboxService.replayDead', "DeadLetterService.replay('outbox', { ids })");
    const { ids: replayed = [] } = await this.deadLetters.replay('outbox', { ids });
    return replayed;
  }
}
