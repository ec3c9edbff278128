import type { ClaimRepository } from './claim.repository.js';
import type { Claim } from '../shared/interfaces/claim.interface.js';

/** The marks of one statement to come: one promise for all of them, not one per mark. */
interface PendingBatch {
  claims: Claim[];
  /** Resolves to the claims of the statement that were lost; rejects when the statement failed. */
  lost: Promise<ReadonlySet<Claim>>;
  resolve(lost: ReadonlySet<Claim>): void;
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
  /** Batches waiting for a statement, oldest first; the last one takes new marks until full or flushed. */
  private queue: PendingBatch[] = [];
  private scheduled = false;
  private running = 0;

  constructor(
    private readonly repository: ClaimRepository,
    private readonly handOffLeaseMs: () => number | undefined,
    private readonly onClaimed: (rows: Row[]) => void,
    private readonly asyncCommit = false,
  ) {}

  /**
   * Marks `claim` finished in the next statement. Resolves to the claims that statement found lost
   * (the caller looks its own up), so that a mark costs no promise of its own; rejects when the
   * statement failed.
   */
  complete(claim: Claim): Promise<ReadonlySet<Claim>> {
    let batch = this.queue.at(-1);
    if (!batch || batch.claims.length >= MAX_BATCH) {
      let resolve!: PendingBatch['resolve'];
      let reject!: PendingBatch['reject'];
      const lost = new Promise<ReadonlySet<Claim>>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      batch = { claims: [], lost, resolve, reject };
      this.queue.push(batch);
    }
    batch.claims.push(claim);
    this.schedule();
    return batch.lost;
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
    setImmediate(this.scheduledFlush);
  }

  /** The scheduled flush, made once: a key's hand-off schedules one a message. */
  private readonly scheduledFlush = (): void => {
    this.scheduled = false;
    void this.flush();
  };

  private async flush(): Promise<void> {
    if (this.queue.length === 0 || this.running >= MAX_MARK_STATEMENTS) return;
    // The oldest batch (at most MAX_BATCH marks): marks asked for from now on start a new one.
    const batch = this.queue.shift()!;
    this.running++;
    // More than a statement's worth queued: the rest starts in the free slot, if any.
    this.schedule();
    try {
      const result = await this.repository.completeMany<Row>(batch.claims, this.handOffLeaseMs(), {
        asyncCommit: this.asyncCommit,
      });
      batch.resolve(new Set(result.lost));
      if (result.claimed.length > 0) this.onClaimed(result.claimed);
    } catch (error) {
      batch.reject(error);
    }
    this.running--;
    this.schedule();
  }
}
