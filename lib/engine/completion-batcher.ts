import type { ClaimRepository } from './claim.repository.js';
import type { Claim, FenceResult } from '../interfaces/claim.interface.js';

interface PendingCompletion {
  claim: Claim;
  resolve(result: FenceResult): void;
  reject(error: unknown): void;
}

/** Most rows one batched mark writes. */
const MAX_BATCH = 500;

/**
 * Finishes rows outside any transaction (the outbox's `sent` marks) in as few statements as the
 * load allows: the marks asked for in one turn of the event loop go together (publishes of one
 * claimed batch tend to end together), and marks asked for while a statement runs go in the
 * next. Each row stays fenced by its own token, and each caller learns whether its row was lost.
 * No mark waits for work still running, so the duplicate window stays one publish wide. The
 * statement hands each finished key on to its next row; those rows go to `onClaimed`.
 */
export class CompletionBatcher<Row> {
  private queue: PendingCompletion[] = [];
  /** A flush is scheduled or running; it takes every completion queued before it ends. */
  private flushing = false;

  constructor(
    private readonly repository: ClaimRepository,
    /** The lease of a row handed on, or undefined to hand nothing on (shutdown). */
    private readonly handOffLeaseMs: () => number | undefined,
    /** Takes the rows the statements claimed by hand-off. */
    private readonly onClaimed: (rows: Row[]) => void,
    /** The marks commit without waiting for their WAL flush (the outbox's `asyncMarks`). */
    private readonly asyncCommit = false,
  ) {}

  complete(claim: Claim): Promise<FenceResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ claim, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // setImmediate: the other completions of this turn join the statement instead of the next one.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const result = await this.repository.completeMany<Row>(
          batch.map((pending) => pending.claim),
          this.handOffLeaseMs(),
          { asyncCommit: this.asyncCommit },
        );
        const lost = new Set(result.lost);
        for (const pending of batch) pending.resolve(lost.has(pending.claim) ? 'lost' : 'ok');
        if (result.claimed.length > 0) this.onClaimed(result.claimed);
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    // NOTE: cleared in the same turn as the last look at the queue. Cleared later (a `finally`
    // on the flush's promise, say), a completion queued by a resolved caller's continuation in
    // between would wait for some other completion to flush it, holding its row and its slot.
    this.flushing = false;
  }
}
