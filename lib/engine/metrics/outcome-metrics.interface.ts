import type { ClaimComponent } from '../../shared/interfaces/claim.interface.js';

/** How a claimed row ended: its work succeeded (`done`), or its failure was written, or its claim was lost. */
export type RowOutcome = 'done' | 'retried' | 'dead' | 'lost';

/** The metrics an outcome moves, by component (`QueueBoxMetrics` records them). */
export interface OutcomeMetrics {
  rowEnded(component: ClaimComponent, stream: string, outcome: RowOutcome, seconds?: number): void;
  orderInversions(component: ClaimComponent, stream: string, count: number): void;
}
