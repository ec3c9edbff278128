import { createRequire } from 'node:module';
import type { Type } from '@nestjs/common';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import {
  invalidCronExpression,
  schedulePackageBroken,
  schedulePackageMissing,
} from '../../shared/queuebox.messages.js';
import { errorText } from '../../shared/errors/error-text.js';

const requirePeer = createRequire(import.meta.url);

/** The part of a `cron` job QueueBox uses (structural: the optional peer's types stay out of QueueBox's). */
export interface RetentionCronJob {
  start(): void;
  stop(): unknown;
  fireOnTick(): Promise<void>;
  /** The next run times (luxon DateTimes). */
  nextDates(count: number): { toMillis(): number }[];
  readonly isActive: boolean;
}

/** The part of `@nestjs/schedule`'s `SchedulerRegistry` QueueBox uses. */
export interface RetentionSchedulerRegistry {
  addCronJob(name: string, job: never): void;
  doesExist(type: 'cron', name: string): boolean;
  getCronJob(name: string): unknown;
  deleteCronJob(name: string): void;
}

export interface SchedulePeer {
  SchedulerRegistry: Type<RetentionSchedulerRegistry>;
  /** A stopped job; `waitForCompletion` keeps one run at a time, however long a sweep takes. */
  createJob(cron: string, timeZone: string, onTick: () => Promise<void>): RetentionCronJob;
}

/** How a package path is resolved; a parameter so that a test can stand in for a missing package. */
export type ResolvePackage = (name: string) => string;

interface CronModule {
  CronJob: { from(params: Record<string, unknown>): RetentionCronJob };
  validateCronExpression(expression: string): { valid: boolean; error?: unknown };
}

/**
 * Loads `@nestjs/schedule` (an optional peer, needed only with `retention.schedule`) and the
 * `cron` package it depends on, resolved from `@nestjs/schedule`'s own location: a strict
 * installer (pnpm) does not let QueueBox see `cron` directly. Throws
 * `InvalidQueueBoxOptionsError` at `retention.schedule` saying what to install.
 */
export async function loadSchedulePeer(
  resolve: ResolvePackage = (name) => requirePeer.resolve(name),
): Promise<SchedulePeer> {
  let schedulePath: string;
  try {
    schedulePath = resolve('@nestjs/schedule');
  } catch {
    throw new InvalidQueueBoxOptionsError('retention.schedule', schedulePackageMissing());
  }
  let schedule: { SchedulerRegistry: Type<RetentionSchedulerRegistry> };
  let cron: CronModule;
  try {
    schedule = (await import('@nestjs/schedule')) as unknown as typeof schedule;
    cron = createRequire(schedulePath)('cron') as CronModule;
  } catch (error) {
    throw new InvalidQueueBoxOptionsError('retention.schedule', schedulePackageBroken(errorText(error).split('\n')[0]));
  }
  return {
    SchedulerRegistry: schedule.SchedulerRegistry,
    createJob: (expression, timeZone, onTick) => {
      const check = cron.validateCronExpression(expression);
      if (!check.valid)
        throw new InvalidQueueBoxOptionsError(
          'retention.schedule',
          invalidCronExpression(expression, errorText(check.error)),
        );
      return cron.CronJob.from({ cronTime: expression, timeZone, onTick, start: false, waitForCompletion: true });
    },
  };
}
