import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import type { QueueBoxTable } from '../../shared/interfaces/claim.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../../shared/interfaces/wake-up-transport.interface.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import {
  QUEUEBOX_DATA_SOURCE,
  QUEUEBOX_RESOLVED_OPTIONS,
  QUEUEBOX_SQL_DIALECT,
} from '../../shared/queuebox.constants.js';
import { CoalescedNotifier } from './coalesced-notifier.js';
import { listenNotLasting } from '../../shared/queuebox.messages.js';

type WakeListener = () => void;

/**
 * Wakes the loops of a table when a new row is committed: in this process after the commit, and in
 * other replicas through the dialect's transport (PostgreSQL LISTEN/NOTIFY; SQL Server polls).
 */
@Injectable()
export class WakeUpHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WakeUpHub');
  private readonly instanceId = randomUUID();
  private readonly listeners = new Map<QueueBoxTable, Set<WakeListener>>();
  private readonly notifiers = new Map<QueueBoxTable, CoalescedNotifier>();
  /** Tables written per uncommitted transaction, and whether it carries its own NOTIFY. */
  private readonly awaitingCommit = new WeakMap<QueryRunner, Map<QueueBoxTable, boolean>>();
  private readonly subscriber: EntitySubscriberInterface;
  private transport?: WakeUpTransport;

  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
  ) {
    this.subscriber = {
      afterTransactionCommit: ({ queryRunner }) => {
        // A savepoint release also reports a commit; only the outermost commit makes rows visible.
        if (queryRunner.isTransactionActive) return;
        const tables = this.awaitingCommit.get(queryRunner);
        this.awaitingCommit.delete(queryRunner);
        tables?.forEach((carried, table) => this.signal(table, carried));
      },
      afterTransactionRollback: ({ queryRunner }) => {
        const tables = this.awaitingCommit.get(queryRunner);
        if (!queryRunner.isTransactionActive) this.awaitingCommit.delete(queryRunner);
        // A savepoint rolled back may have taken the carried NOTIFY with it: signal after the commit.
        else tables?.forEach((_carried, table) => tables.set(table, false));
      },
    };
  }

  subscribe(table: QueueBoxTable, listener: WakeListener): () => void {
    const set = this.listeners.get(table) ?? new Set();
    this.listeners.set(table, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Before a write: the wake-up the statement should carry to its commit when it opens a coalescing
   * window, or undefined (others are woken after the commit). Pass what it carried to `rowsWritten`.
   */
  commitWakeUp(table: QueueBoxTable): CommitWakeUp | undefined {
    const transport = this.transport;
    if (!transport?.withCommit || !this.notifiers.get(table)?.lead()) return undefined;
    return transport.withCommit(table);
  }

  /** Rows were written with `manager`: wake the loops after its commit (or now). `carried`: its statement did. */
  rowsWritten(table: QueueBoxTable, manager?: EntityManager, carried = false): void {
    const runner = manager?.queryRunner;
    if (runner?.isTransactionActive) {
      const tables = this.awaitingCommit.get(runner) ?? new Map<QueueBoxTable, boolean>();
      tables.set(table, carried || tables.get(table) === true);
      this.awaitingCommit.set(runner, tables);
      return;
    }
    this.signal(table, carried);
  }

  wakeLocal(table: QueueBoxTable): void {
    this.listeners.get(table)?.forEach((listener) => listener());
  }

  get crossReplica(): boolean {
    return this.transport !== undefined;
  }

  onApplicationBootstrap(): void {
    (this.dataSource.subscribers as EntitySubscriberInterface[]).push(this.subscriber);
    const notify = this.options.notify;
    this.transport = notify.enabled
      ? this.dialect.createWakeUpTransport(this.dataSource, this.instanceId, notify.listenUrl)
      : undefined;
    const transport = this.transport;
    if (!transport) return;
    for (const table of ['outbox', 'inbox'] as const) {
      this.notifiers.set(table, new CoalescedNotifier(notify.coalesceMs, () => transport.send(table)));
    }
    if (!this.options.workers.enabled) return;
    // A LISTEN pooled per transaction would not outlast it: only `notify.listenUrl` can listen then.
    // NOTIFYs are still sent, for the replicas that do listen.
    if (this.dialect.pooling.sessionPerTransaction && notify.listenUrl === undefined) {
      this.logger.warn(listenNotLasting());
      return;
    }
    void transport.listen((table) => this.wakeLocal(table));
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscribers = this.dataSource.subscribers as EntitySubscriberInterface[];
    const index = subscribers.indexOf(this.subscriber);
    if (index >= 0) subscribers.splice(index, 1);
    await Promise.all([...this.notifiers.values()].map((notifier) => notifier.close()));
    await this.transport?.close();
  }

  private signal(table: QueueBoxTable, carried = false): void {
    this.wakeLocal(table);
    if (!carried) this.notifiers.get(table)?.signal();
  }
}
