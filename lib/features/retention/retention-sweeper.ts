import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import { StatementRunner } from '../../database/statement-runner.js';
import type { QueueBoxTable, SqlDialect } from '../../database/sql-dialect.interface.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../shared/queuebox.constants.js';
import { PollLoop } from '../../engine/poll-loop.js';
import { errorText } from '../../shared/errors/error-text.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { duplicateRetentionJob, scheduleModuleMissing } from '../../shared/queuebox.messages.js';
import { loadSchedulePeer, type RetentionCronJob, type RetentionSchedulerRegistry } from './schedule-peer.js';

interface ScheduledSweep {
  job: RetentionCronJob;
  registry: RetentionSchedulerRegistry;
  /** Aborted at shutdown: a running sweep stops between chunks. */
  controller: AbortController;
  running?: Promise<void>;
  lastRunAt?: Date;
  lastError?: unknown;
  consecutiveErrors: number;
}

/** Rows deleted per statement: short statements, short row locks, bounded WAL bursts. */
const PURGE_CHUNK = 1_000;

interface PurgeRule {
  table: QueueBoxTable;
  state: 'done' | 'dead';
  olderThanMs: number;
  label: string;
}

/**
 * Deletes finished rows older than the `retention` ages, in chunks, on its own slow loop
 * (default once a minute), or on a cron schedule (`retention.schedule`) as a named job of
 * `@nestjs/schedule`'s `SchedulerRegistry`. Without it the tables grow forever; with it, the
 * partial indexes the claims use stay small and the finished-rows index stays bounded. Runs only
 * where workers run.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetentionSweeper.name);
  private readonly rules: PurgeRule[];
  private readonly loop: PollLoop;
  private scheduled?: ScheduledSweep;

  constructor(
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly metrics: QueueBoxMetrics,
    private readonly moduleRef: ModuleRef,
    private readonly schema: SchemaCheck,
  ) {
    const { outboxSentMs, inboxProcessedMs, deadMs, intervalMs } = options.retention;
    const rules: (PurgeRule | undefined)[] = [
      outboxSentMs === undefined
        ? undefined
        : { table: 'outbox', state: 'done', olderThanMs: outboxSentMs, label: 'sent' },
      inboxProcessedMs === undefined
        ? undefined
        : { table: 'inbox', state: 'done', olderThanMs: inboxProcessedMs, label: 'processed' },
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

  /**
   * The sweeper as the admin's loop snapshots show it: its interval loop, or, on a schedule, its
   * cron job (running while the job is active; `intervalMs` is then the gap between the job's
   * next two runs).
   */
  get loopStatus(): Pick<PollLoop, 'state' | 'lastTickAt' | 'lastError' | 'consecutiveErrors'> & {
    intervalMs: number;
    enabled: boolean;
  } {
    const enabled = this.rules.length > 0;
    const scheduled = this.scheduled;
    if (!scheduled) {
      const { state, lastTickAt, lastError, consecutiveErrors } = this.loop;
      return {
        state,
        lastTickAt,
        lastError,
        consecutiveErrors,
        intervalMs: this.options.retention.intervalMs,
        enabled,
      };
    }
    const [next, after] = scheduled.job.nextDates(2).map((date) => date.toMillis());
    return {
      state: scheduled.job.isActive ? 'running' : 'stopped',
      lastTickAt: scheduled.lastRunAt,
      lastError: scheduled.lastError,
      consecutiveErrors: scheduled.consecutiveErrors,
      intervalMs: after - next,
      enabled,
    };
  }

  /** Starts the sweeper, once QueueBox's tables are ready (startup.waitForMigrations may defer it). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.workers.enabled || this.rules.length === 0) return;
    await this.schema.whenReady(() => this.start());
  }

  private async start(): Promise<void> {
    const rules = this.rules.map((rule) => `${rule.table} ${rule.label} after ${rule.olderThanMs} ms`).join(', ');
    const schedule = this.options.retention.schedule;
    if (schedule) {
      await this.startSchedule(schedule.cron, schedule.timeZone, schedule.jobName);
      this.logger.log(
        `scheduled: deletes ${rules}, on "${schedule.cron}" (${schedule.timeZone}) as cron job "${schedule.jobName}"`,
      );
      return;
    }
    this.loop.start();
    this.logger.log(`started: deletes ${rules}, every ${this.options.retention.intervalMs} ms`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduled) {
      await this.stopSchedule(this.scheduled);
      this.scheduled = undefined;
      this.logger.log('stopped');
      return;
    }
    if (this.loop.state !== 'running') return;
    await this.loop.stop();
    this.logger.log('stopped');
  }

  /**
   * Registers the sweep as a cron job in the application's `SchedulerRegistry` (from
   * `ScheduleModule.forRoot()`), where the application can inspect, trigger or stop it.
   */
  private async startSchedule(cron: string, timeZone: string, jobName: string): Promise<void> {
    const peer = await loadSchedulePeer();
    let registry: RetentionSchedulerRegistry;
    try {
      registry = this.moduleRef.get(peer.SchedulerRegistry, { strict: false });
    } catch {
      throw new InvalidQueueBoxOptionsError('retention.schedule', scheduleModuleMissing());
    }
    if (registry.doesExist('cron', jobName))
      throw new InvalidQueueBoxOptionsError('retention.jobName', duplicateRetentionJob(jobName));
    const job = peer.createJob(cron, timeZone, () => this.scheduledSweep());
    this.scheduled = { job, registry, controller: new AbortController(), consecutiveErrors: 0 };
    registry.addCronJob(jobName, job as never);
    job.start();
  }

  /**
   * One scheduled run. Failures are logged and counted like the loop's, never thrown into the
   * cron library; the next run comes at the next scheduled time.
   */
  private scheduledSweep(): Promise<void> {
    const scheduled = this.scheduled;
    if (!scheduled || scheduled.controller.signal.aborted) return Promise.resolve();
    scheduled.running = this.sweep(scheduled.controller.signal).then(
      () => {
        scheduled.lastRunAt = new Date();
        scheduled.consecutiveErrors = 0;
      },
      (error: unknown) => {
        if (scheduled.controller.signal.aborted) return;
        scheduled.lastRunAt = new Date();
        scheduled.lastError = error;
        scheduled.consecutiveErrors += 1;
        this.logger.error('scheduled retention sweep failed', { error: errorText(error) });
        this.metrics.loopError('retention');
      },
    );
    return scheduled.running;
  }

  /** Stops the job (if the application has not already), takes it out of the registry, and waits for a running sweep. */
  private async stopSchedule(scheduled: ScheduledSweep): Promise<void> {
    const jobName = this.options.retention.schedule!.jobName;
    scheduled.job.stop();
    if (scheduled.registry.doesExist('cron', jobName) && scheduled.registry.getCronJob(jobName) === scheduled.job) {
      scheduled.registry.deleteCronJob(jobName);
    }
    scheduled.controller.abort();
    await scheduled.running;
  }

  /** One pass over every rule; a rule's chunks repeat while they come back full. */
  private async sweep(signal: AbortSignal): Promise<'idle'> {
    for (const rule of this.rules) {
      for (;;) {
        if (signal.aborted) return 'idle';
        const deleted = await this.runner.run(
          this.dialect.purgeFinished(rule.table, rule.state, rule.olderThanMs, PURGE_CHUNK),
        );
        this.metrics.purged(rule.table, rule.label, deleted.length);
        if (deleted.length < PURGE_CHUNK) break;
      }
    }
    return 'idle';
  }
}
