import type { ClaimComponent } from '../../shared/interfaces/claim.interface.js';

/** The documented bounds of an adaptive loop. */
export interface PaceBounds {
  concurrency: { min: number; start: number; max: number };
  batchSize: { min: number; max: number };
}

/** The outbox poller's bounds: 10–1000 publishes in flight (start 100), 5–500 rows per claim. */
export const OUTBOX_PACE_BOUNDS: PaceBounds = {
  concurrency: { min: 10, start: 100, max: 1_000 },
  batchSize: { min: 5, max: 500 },
};

/** The inbox relay's bounds: 5–200 forwards in flight (start 20), 5–100 rows per claim. */
export const RELAY_PACE_BOUNDS: PaceBounds = {
  concurrency: { min: 5, start: 20, max: 200 },
  batchSize: { min: 5, max: 100 },
};

/** Each claimer's bounds; pull workers have none: their pace is always the fixed one their options set. */
export const PACE_BOUNDS: { readonly [C in ClaimComponent]: PaceBounds | undefined } = {
  outbox: OUTBOX_PACE_BOUNDS,
  relay: RELAY_PACE_BOUNDS,
  pull: undefined,
};
