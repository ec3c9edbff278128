/**
 * Thresholds of `QueueBoxHealthIndicator`, given to `QueueBoxHealthModule.forRoot()`. A
 * `degraded` threshold keeps the indicator up and lists the finding under `degraded`; a `down`
 * threshold reports it down. Every threshold is off unless set, except the stalled loop's.
 * @publicApi
 */
export interface QueueBoxHealthOptions {
  /**
   * Age of the oldest pending message of any destination or source, as last sampled (every
   * `workers.metricsIntervalMs`, by the database clock) by the workers of this replica.
   */
  oldestPendingAge?: { degradedAfterMs?: number; downAfterMs?: number };
  /** Dead letters this replica wrote (outbox, relay, pull) within the last `windowMs` (default 15 minutes). */
  deadLetters?: { windowMs?: number; degradedAt?: number; downAt?: number };
  /**
   * A loop that has not ticked for this many poll intervals (and at least `minStaleMs`, default
   * 60 s) while nothing is in flight. `downAfterIntervals` defaults to 3.
   */
  stalledLoop?: { degradedAfterIntervals?: number; downAfterIntervals?: number; minStaleMs?: number };
}

/** The thresholds with their defaults; `undefined`: off. */
export interface ResolvedHealthThresholds {
  oldestPendingAge: { degradedAfterMs?: number; downAfterMs?: number };
  deadLetters: { windowMs: number; degradedAt?: number; downAt?: number };
  stalledLoop: { degradedAfterIntervals?: number; downAfterIntervals: number; minStaleMs: number };
}
