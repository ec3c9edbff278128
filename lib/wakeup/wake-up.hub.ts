import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { ClaimTable, SqlDialect } from '../dialects/sql-dialect.interface.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { errorText } from '../runtime/error-text.js';
import { runStatement } from '../claims/run-statement.js';
import { CoalescedNotifier } from './coalesced-notifier.js';
import { NotificationListener } from './notification-listener.js';

type WakeListener = () => void;

/**
 * Wakes the loops of a table when a new row is committed: at once in this process once the
 * writing transaction commits, and in other replicas through a coalesced LISTEN/NOTIFY.
 * The poll interval is only the fallback.
 */
@Injectable()
export class WakeUpHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WakeUpHub.name);
  private readonly instanceId = randomUUID();
  private readonly listeners = new Map<ClaimTable, Set<WakeListener>>();
  private readonly notifiers = new Map<ClaimTable, CoalescedNotifier>();
  /** Tables written inside a transaction that has not committed yet, per query runner. */
  private readonly awaitingCommit = new WeakMap<QueryRunner, Set<ClaimTable>>();
  private readonly subscriber: EntitySubscriberInterface;
  private listener?: NotificationListener;

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
        tables?.forEach((table) => this.signal(table));
      },
      afterTransactionRollback: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) this.awaitingCommit.delete(queryRunner);
      },
    };
  }

  /** Calls `listener` whenever rows of `table` may have become claimable. */
  subscribe(table: ClaimTable, listener: WakeListener): () => void {
    const set = this.listeners.get(table) ?? new Set();
    this.listeners.set(table, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Rows of `table` were written with `manager`: wake the loops once they are visible, i.e.
   * after the manager's transaction commits, or now when there is no transaction.
   */
  rowsWritten(table: ClaimTable, manager?: EntityManager): void {
    const runner = manager?.queryRunner;
    if (runner?.isTransactionActive) {
      const tables = this.awaitingCommit.get(runner) ?? new Set();
      tables.add(table);
      this.awaitingCommit.set(runner, tables);
      return;
    }
    this.signal(table);
  }

  /** Wakes this process's loops of `table` now, without a notification. */
  wakeLocal(table: ClaimTable): void {
    this.listeners.get(table)?.forEach((listener) => listener());
  }

  onApplicationBootstrap(): void {
    (this.dataSource.subscribers as EntitySubscriberInterface[]).push(this.subscriber);
    const notify = this.options.outbox.notify;
    const tables: ClaimTable[] = ['outbox', 'inbox'];
    const channels = new Map<string, ClaimTable>();
    for (const table of tables) {
      const channel = notify.enabled ? this.dialect.wakeChannel(table) : undefined;
      if (!channel) continue;
      channels.set(channel, table);
      this.notifiers.set(table, new CoalescedNotifier(notify.coalesceMs, () => this.sendNotify(channel)));
    }
    if (this.options.workersEnabled && channels.size > 0) {
      this.listener = new NotificationListener(this.dataSource, this.dialect, [...channels.keys()], this.instanceId, (channel) =>
        this.wakeLocal(channels.get(channel)!),
      );
      void this.listener.start();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscribers = this.dataSource.subscribers as EntitySubscriberInterface[];
    const index = subscribers.indexOf(this.subscriber);
    if (index >= 0) subscribers.splice(index, 1);
    await Promise.all([...[...this.notifiers.values()].map((notifier) => notifier.close()), this.listener?.close()]);
  }

  private signal(table: ClaimTable): void {
    this.wakeLocal(table);
    this.notifiers.get(table)?.signal();
  }

  private async sendNotify(channel: string): Promise<void> {
    try {
      await runStatement(this.dataSource, this.dialect.notify(channel, this.instanceId));
    } catch (error) {
      // Other replicas still poll; a failed wake-up costs latency, never a message.
      this.logger.warn({ message: 'wake-up NOTIFY failed', error: errorText(error) });
    }
  }
}
