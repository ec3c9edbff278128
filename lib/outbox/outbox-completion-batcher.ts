import type { Claim, FenceResult } from '../claims/claim.js';
import type { ClaimRepository } from '../claims/claim.repository.js';

interface PendingCompletion {
  claim: Claim;
  resolve(result: FenceResult): void;
  reject(error: unknown): void;
}

/** Most rows one batched mark writes. */
const MAX_BATCH = 500;

/**
 * Marks published messages `sent` in as few statements as the load allows: a mark asked for while
 * none runs is sent at once (no added latency); marks asked for while one runs go together in
 * the next. Each row stays fenced by its own token, and each caller learns whether its row was
 * lost. The duplicate window stays one publish wide: no mark waits for other publishes.
 */
export class OutboxCompletionBatcher {
  private queue: PendingCompletion[] = [];
  private flushing?: Promise<void>;

  constructor(private readonly repository: ClaimRepository) {}

  complete(claim: Claim): Promise<FenceResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ claim, resolve, reject });
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const lost = new Set(await this.repository.completeMany(batch.map((pending) => pending.claim)));
        for (const pending of batch) pending.resolve(lost.has(pending.claim) ? 'lost' : 'ok');
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
  }
}
