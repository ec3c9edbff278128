import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { invalidOption, retentionScheduleNeedsAges, retentionScheduleOnly } from '../../shared/queuebox.messages.js';
import type { ResolvedRetentionSchedule } from './resolved-options.interface.js';

/**
 * The off-peak default of `retention.schedule: true`: 03:30 every day. Daylight-saving changes
 * happen between 01:00 and 03:00 local time in the zones that have them, so 03:30 exists on every
 * day and occurs once: the sweep is never skipped nor run twice.
 */
export const DEFAULT_RETENTION_SCHEDULE = '30 3 * * *';
export const DEFAULT_RETENTION_TIME_ZONE = 'UTC';
export const DEFAULT_RETENTION_JOB_NAME = 'queuebox-retention';

/** Fields of a cron expression: minute hour day month weekday, optionally with seconds first. */
const CRON_FIELD = /^[0-9A-Za-z*?,/#-]+$/;
/** A job name that reads well in logs: letters, digits, `.`, `_`, `:` and `-`. */
const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/**
 * The cron schedule of the retention sweeper, or undefined for the interval loop. The shape of
 * the expression is checked here, without the optional `@nestjs/schedule`; the cron library
 * checks its values when the job is created, and its refusal names `retention.schedule` too.
 */
export function resolveRetentionSchedule(
  retention: Record<string, unknown>,
  hasAges: boolean,
): ResolvedRetentionSchedule | undefined {
  const { schedule, timeZone, jobName, intervalMs } = retention;
  if (schedule === undefined) {
    for (const [name, value] of [
      ['timeZone', timeZone],
      ['jobName', jobName],
    ] as const) {
      if (value !== undefined)
        throw new InvalidQueueBoxOptionsError(`retention.${name}`, retentionScheduleOnly(`retention.${name}`));
    }
    return undefined;
  }
  if (intervalMs !== undefined)
    throw new InvalidQueueBoxOptionsError('retention.intervalMs', retentionScheduleOnly('retention.intervalMs', true));
  if (!hasAges) throw new InvalidQueueBoxOptionsError('retention.schedule', retentionScheduleNeedsAges());
  return {
    cron: readCron(schedule),
    timeZone: readTimeZone(timeZone),
    jobName: readJobName(jobName),
  };
}

function readCron(value: unknown): string {
  if (value === true) return DEFAULT_RETENTION_SCHEDULE;
  const fields = typeof value === 'string' ? value.trim().split(/\s+/) : [];
  if (fields.length < 5 || fields.length > 6 || !fields.every((field) => CRON_FIELD.test(field))) {
    throw new InvalidQueueBoxOptionsError(
      'retention.schedule',
      invalidOption(
        'retention.schedule',
        value,
        `true (off-peak: '${DEFAULT_RETENTION_SCHEDULE}') or a cron expression of 5 fields (minute hour day month weekday), or 6 with seconds first`,
      ),
    );
  }
  return fields.join(' ');
}

function readTimeZone(value: unknown): string {
  if (value === undefined) return DEFAULT_RETENTION_TIME_ZONE;
  if (typeof value !== 'string' || !isTimeZone(value)) {
    throw new InvalidQueueBoxOptionsError(
      'retention.timeZone',
      invalidOption('retention.timeZone', value, "an IANA time zone such as 'UTC' or 'Europe/Berlin'"),
    );
  }
  return value;
}

/** Whether the runtime's ICU knows the zone; the cron library resolves zones through it too. */
function isTimeZone(zone: string): boolean {
  if (zone.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function readJobName(value: unknown): string {
  if (value === undefined) return DEFAULT_RETENTION_JOB_NAME;
  if (typeof value !== 'string' || !JOB_NAME.test(value)) {
    throw new InvalidQueueBoxOptionsError(
      'retention.jobName',
      invalidOption(
        'retention.jobName',
        value,
        'a name of 1 to 100 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
      ),
    );
  }
  return value;
}
