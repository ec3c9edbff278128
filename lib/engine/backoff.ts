import type { ResolvedBackoff } from '../config/options/resolved-options.interface.js';

/**
 * Delay in milliseconds before retry number `attempt` (1 for the first retry): exponential from
 * `initialDelayMs` by `multiplier`, capped at `maxDelayMs`, then jittered. Pure; `random` is
 * injectable for tests. The SQL adds the result to the database clock.
 */
export function backoffDelay(attempt: number, options: ResolvedBackoff, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempt - 1);
  const raw = options.initialDelayMs * options.multiplier ** exponent;
  const capped = Math.min(options.maxDelayMs, Number.isFinite(raw) ? raw : options.maxDelayMs);
  switch (options.jitter) {
    case 'full':
      return Math.round(random() * capped);
    case 'equal':
      return Math.round(capped / 2 + random() * (capped / 2));
    case 'none':
      return Math.round(capped);
  }
}
