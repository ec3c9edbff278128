import type { Logger } from '@nestjs/common';
import { errorText } from '../shared/errors/error-text.js';
import { startUpConnectionLost } from '../shared/queuebox.messages.js';
import type { DatabaseErrorKind } from './statement-results.js';

/** How long a start-up check is tried again while its connection is lost, before start-up fails. */
export const START_UP_RETRY_MS = 15_000;

/** The waits between tries: doubling from the first, at most the last. */
export interface RetrySchedule {
  firstDelayMs: number;
  maxDelayMs: number;
  /** Give up once this long has passed since the first try. */
  withinMs: number;
}

const START_UP: RetrySchedule = { firstDelayMs: 100, maxDelayMs: 2_000, withinMs: START_UP_RETRY_MS };

/**
 * Runs a start-up check, and runs it again while it fails because the connection was lost (a
 * backend terminated, a failover, a server restarting: `connection-lost`), for up to
 * `START_UP_RETRY_MS`, with one warning. An application restarted by its orchestrator during
 * such a moment then starts instead of exiting; a database that stays away, or any other error,
 * still fails start-up (the last error, as it was).
 */
export async function retryConnectionLost<T>(
  check: string,
  run: () => Promise<T>,
  classify: (error: unknown) => DatabaseErrorKind | undefined,
  logger: Pick<Logger, 'warn'>,
  schedule: RetrySchedule = START_UP,
): Promise<T> {
  const began = performance.now();
  let delayMs = schedule.firstDelayMs;
  for (let warned = false; ;) {
    try {
      return await run();
    } catch (error) {
      if (classify(error) !== 'connection-lost' || performance.now() - began + delayMs > schedule.withinMs) throw error;
      if (!warned) logger.warn(startUpConnectionLost(check, errorText(error), schedule.withinMs));
      warned = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, schedule.maxDelayMs);
    }
  }
}
