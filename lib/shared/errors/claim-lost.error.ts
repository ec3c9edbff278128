import type { ClaimComponent } from '../interfaces/claim.interface.js';
import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown when a fenced write affected zero rows: the caller no longer owns the row (its lease
 * ended, or another worker claimed it). Stop the work; never retry with another token.
 * @publicApi
 */
export class ClaimLostError extends QueueBoxError {
  constructor(
    readonly component: ClaimComponent,
    readonly rowId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('CLAIM_LOST', message, options);
  }
}
