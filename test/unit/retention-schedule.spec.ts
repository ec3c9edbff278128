import { describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError } from '../../lib/shared/errors/invalid-queuebox-options.error.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { loadSchedulePeer } from '../../lib/features/retention/schedule-peer.js';

const AGES = { outboxSentMs: 3_600_000 };

function refusal(retention: Record<string, unknown>): InvalidQueueBoxOptionsError {
  try {
    resolveOptions({ retention } as never);
  } catch (error) {
    if (error instanceof InvalidQueueBoxOptionsError) return error;
    throw error;
  }
  throw new Error('expected the options to be refused');
}

describe('retention.schedule options', () => {
  it('keeps the interval loop when no schedule is given', () => {
    expect(resolveOptions({ retention: AGES }).retention).toEqual({
      ...AGES,
      inboxProcessedMs: undefined,
      deadMs: undefined,
      intervalMs: 60_000,
      schedule: undefined,
    });
  });

  it('schedules off-peak (03:30 UTC) under the default job name with `schedule: true`', () => {
    expect(resolveOptions({ retention: { ...AGES, schedule: true } }).retention.schedule).toEqual({
      cron: '30 3 * * *',
      timeZone: 'UTC',
      jobName: 'queuebox-retention',
    });
  });

  it('takes a cron expression (5 or 6 fields), a time zone and a job name', () => {
    const resolved = resolveOptions({
      retention: {
        deadMs: 86_400_000,
        schedule: ' 0  */4 * * 1-5 ',
        timeZone: 'Europe/Berlin',
        jobName: 'orders.retention',
      },
    });
    expect(resolved.retention.schedule).toEqual({
      cron: '0 */4 * * 1-5',
      timeZone: 'Europe/Berlin',
      jobName: 'orders.retention',
    });
    expect(resolveOptions({ retention: { ...AGES, schedule: '30 0 2 * * *' } }).retention.schedule?.cron).toBe(
      '30 0 2 * * *',
    );
  });

  it.each([
    [{ ...AGES, schedule: false }, 'retention.schedule'],
    [{ ...AGES, schedule: '' }, 'retention.schedule'],
    [{ ...AGES, schedule: '* * * *' }, 'retention.schedule'],
    [{ ...AGES, schedule: '* * * * * * *' }, 'retention.schedule'],
    [{ ...AGES, schedule: '0 3 * * *; rm' }, 'retention.schedule'],
    [{ ...AGES, schedule: 3 }, 'retention.schedule'],
    [{ schedule: true }, 'retention.schedule'],
    [{ ...AGES, schedule: true, timeZone: 'Mars/Olympus' }, 'retention.timeZone'],
    [{ ...AGES, schedule: true, timeZone: '' }, 'retention.timeZone'],
    [{ ...AGES, schedule: true, timeZone: 1 }, 'retention.timeZone'],
    [{ ...AGES, schedule: true, jobName: '' }, 'retention.jobName'],
    [{ ...AGES, schedule: true, jobName: 'has space' }, 'retention.jobName'],
    [{ ...AGES, schedule: true, jobName: 'x'.repeat(101) }, 'retention.jobName'],
    [{ ...AGES, schedule: true, intervalMs: 1_000 }, 'retention.intervalMs'],
    [{ ...AGES, timeZone: 'UTC' }, 'retention.timeZone'],
    [{ ...AGES, jobName: 'sweeper' }, 'retention.jobName'],
    [{ ...AGES, scheduled: true }, 'retention.scheduled'],
  ])('refuses %j naming %s', (retention, path) => {
    const error = refusal(retention);
    expect(error.path).toBe(path);
    expect(error.message).toContain(`"${path}"`);
  });
});

describe('loadSchedulePeer', () => {
  it('says what to install when @nestjs/schedule is missing', async () => {
    const missing = (name: string): string => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    const error = await loadSchedulePeer(missing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'retention.schedule', code: 'INVALID_OPTIONS' });
    expect((error as Error).message).toContain('npm install @nestjs/schedule');
    expect((error as Error).message).toContain('ScheduleModule.forRoot()');
  });

  it('refuses a cron expression the cron library rejects, naming retention.schedule', async () => {
    const peer = await loadSchedulePeer();
    expect(() => peer.createJob('61 3 * * *', 'UTC', async () => {})).toThrow(InvalidQueueBoxOptionsError);
    const job = peer.createJob('30 3 * * *', 'UTC', async () => {});
    expect(job.isActive).toBe(false);
  });
});
