import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { StatementRunner } from '../claims/statement-runner.js';
import type { ClaimTable, SqlDialect } from '../dialects/sql-dialect.interface.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { PollLoop } from '../runtime/poll-loop.js';

/** Rows deleted per statement: short statements, short row locks, bounded WAL bursts. */
const PURGE_CHUNK = 1_000;

interface PurgeRule {
  table: ClaimTable;
  state: 'done' | 'dead';
  olderThanMs: number;
  label: string;
}

/**
 * Deletes finished rows older than the `retention` ages, in chunks, on its own slow loop
 * (default once a minute). Without it the tables grow forever; with it, the partial indexes the
 * claims use stay small and the finished-rows index stays bounded. Runs only where workers run.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetentionSweeper.name);
  private readonly rules: PurgeRule[];
  private readonly loop: PollLoop;

  constructor(
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly metrics: QueueBoxMetrics,
  ) {
    const { outboxSentMs, inboxProcessedMs, deadMs, intervalMs } = options.retention;
    const rules: (PurgeRule | undefined)[] = [
      outboxSentMs === undefined ? undefined : { table: 'outbox', state: 'done', olderThanMs: outboxSentMs, label: 'sent' },
      inboxProcessedMs === undefined ? undefined : { table: 'inbox', state: 'done', olderThanMs: inboxProcessedMs, label: 'processed' },
      deadMs === undefined ? undefined : { table: 'outbox', state: 'dead', olderThanMs: deadMs, label: 'dead' },
      deadMs === undefined ? undefined : { table: 'inbox', state: 'dead', olderThanMs: deadMs, label: 'dead' },
    ];
    this.rules = rules.filter((rule): rule is PurgeRule => rule !== undefined);
    this.loop = new PollLoop({
      name: RetentionSweeper.name,
      intervalMs,
      tick: (signal) => this.sweep(signal),
      onError: () => metrics.loopError('retention'),
      onTick: metrics.loopTicker('retention'),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.options.workersEnabled || this.rules.length === 0) return;
    this.loop.start();
    const rules = this.rules.map((rule) => `${rule.table} ${rule.label} after ${rule.olderThanMs} ms`);
    this.logger.log(`started: deletes ${rules.join(', ')}, every ${this.options.retention.intervalMs} ms`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.loop.state !== 'running') return;
    await this.loop.stop();
    this.logger.log('stopped');
  }

  /** One pass over every rule; a rule's chunks repeat while they come back full. */
  private async sweep(signal: AbortSignal): Promise<'idle'> {
    for (const rule of this.rules) {
      for (;;) {
        if (signal.aborted) return 'idle';
        const deleted = await this.runner.run(this.dialect.purgeFinished(rule.table, rule.state, rule.olderThanMs, PURGE_CHUNK));
        this.metrics.purged(rule.table, rule.label, deleted.length);
        if (deleted.length < PURGE_CHUNK) break;
      }
    }
    return 'idle';
  }
}
