import type { ClaimRepository } from './claim.repository.js';
import type { Claim, FenceResult } from '../shared/interfaces/claim.interface.js';

interface PendingCompletion {
  claim: Claim;
  resolve(result: FenceResult): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 500;

/** Mark statements that may run at once: two lanes finish batches side by side; more would only split them. */
export const MAX_MARK_STATEMENTS = 2;

/**
 * Finishes rows outside any transaction (the outbox's `sent` marks) in as few statements as the load
 * allows: the marks of one event-loop turn go together; marks asked for while statements run go in a
 * second statement, or the next to start. Each row stays fenced by its own token. No mark waits for
 * running work, so the duplicate window stays one publish wide. Handed-on rows go to `onClaimed`.
 */
export class CompletionBatcher<Row> {
  private queue: PendingCompletion[] = [];
  private scheduled = false;
  private running = 0;

  constructor(
    private readonly repository: ClaimRepository,
    private readonly handOffLeaseMs: () => number | undefined,
    private readonly onClaimed: (rows: Row[]) => void,
    private readonly asyncCommit = false,
  ) {}

  complete(claim: Claim): Promise<FenceResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ claim, resolve, reject });
      this.schedule();
    });
  }

  /**
   * NOTE: every path that leaves marks queued calls this in the same turn (a new mark, a statement
   * that ended). A mark queued while every slot is busy is taken by the next statement that ends;
   * one scheduled for later only would wait for some other mark to start it, holding its row.
   */
  private schedule(): void {
    if (this.scheduled || this.running >= MAX_MARK_STATEMENTS || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate: the other completions of this turn join the statement instead of the next one.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.queue.length === 0 || this.running >= MAX_MARK_STATEMENTS) return;
    const batch = this.queue.splice(0, MAX_BATCH);
    this.running++;
    // More than a statement's worth queued: the rest starts in the free slot, if any.
    this.schedule();
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
    this.running--;
    this.schedule();
  }
}
