/**
 * Something health found beyond the loops' liveness: `degraded` keeps the indicator up with the
 * finding in its details (an operator should act); `down` reports it down.
 * @publicApi
 */
export interface HealthFinding {
  level: 'degraded' | 'down';
  /** What was found: lease advice, or a threshold of `health` options that was crossed. */
  kind: 'lease-advice' | 'oldest-pending-age' | 'dead-letters' | 'stalled-loop';
  /** What it concerns: a destination, a source, or a loop. */
  subject: string;
  /** The observed value, in the threshold's unit. */
  observed: number;
  /** The threshold crossed, or the recommended lease (lease advice). */
  limit: number;
  /** What to do, in words. */
  message: string;
}
