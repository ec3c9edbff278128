import type { ClaimCursor, ClaimRequest } from '../database/sql-dialect.interface.js';
import type { ClaimProgress } from '../database/statement-results.js';

/**
 * Where the next claim's walk over keys starts, for one claimer: it resumes after the last key
 * the previous claim walked, moves to the next stream (source) when a stream's keys run out, and
 * starts over after the last one — so every key is visited in turn, whatever the depth of the keys
 * before it (contributing/claim-sql.md, "The claim").
 */
export class WalkCursor {
  private position: ClaimCursor;

  /** `streams`: the sources whose keys the walk covers in turn; none for the outbox's (destination, key) walk. */
  constructor(private readonly streams: readonly string[] = []) {
    this.position = { stream: streams[0] ?? '', key: '' };
  }

  /** The bounds of the next claim of at most `batchSize` rows. */
  request(batchSize: number, leaseMs: number): ClaimRequest {
    return {
      batchSize,
      leaseMs,
      walkKeys: walkKeysFor(batchSize),
      windowRows: windowRowsFor(batchSize),
      cursor: this.position,
    };
  }

  /**
   * Moves past what the claim of `request` walked. True when that claim saw everything claimable:
   * its window held every keyed row, and its walk covered every key of the only stream from the
   * start.
   */
  advance(request: ClaimRequest, progress: ClaimProgress): boolean {
    const startedAtBeginning = request.cursor.key === '';
    const ranOut = progress.walked < request.walkKeys;
    if (ranOut) {
      const next =
        this.streams.length > 0
          ? this.streams[(this.streams.indexOf(request.cursor.stream) + 1) % this.streams.length]
          : '';
      this.position = { stream: next, key: '' };
    } else if (progress.last) {
      this.position = progress.last;
    }
    return ranOut && startedAtBeginning && progress.windowRows < request.windowRows && this.streams.length <= 1;
  }
}

/** Keys one claim walks: enough to fill a batch with heads of distinct keys. */
function walkKeysFor(batchSize: number): number {
  return Math.max(batchSize, 16);
}

/** Oldest keyed rows one claim looks at: two batches, so that heads near the front are found at once. */
function windowRowsFor(batchSize: number): number {
  return Math.max(2 * batchSize, 32);
}
