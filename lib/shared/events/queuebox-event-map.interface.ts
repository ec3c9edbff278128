import type { ClaimComponent, QueueBoxTable } from '../interfaces/claim.interface.js';
import type { LeaseAdvice } from '../interfaces/lease-advice.interface.js';

/**
 * The events QueueBox emits in-process, by name, with their payloads. Payloads carry ids and
 * bounded names, never message payloads.
 * @publicApi
 */
export interface QueueBoxEventMap {
  /** A row was dead-lettered after its last attempt or a permanent failure. */
  'message.dead-lettered': {
    component: ClaimComponent;
    /** Row id. */
    id: string;
    /** The destination (outbox) or source (relay, pull) of the row. */
    stream: string;
    attempt: number;
    /** The error text stored with the row. */
    error: string;
  };
  /** A renewal or a fenced write found a claim lost: another worker owns the row now. */
  'claim.lost': {
    component: ClaimComponent;
    id: string;
    stream: string;
    /** What found it: a renewal during the work, or the finishing write. */
    during: 'work' | 'retry' | 'dead-letter' | 'finish';
  };
  /** Expired claims were returned to pending by the reclaim step (their workers stalled or died). */
  'rows.reclaimed': { table: QueueBoxTable; count: number };
  /** The relay forwarded an inbox message into the outbox. */
  'relay.forwarded': { id: string; source: string; idempotencyKey: string };
  /** A claim took a row older than a row of its key already claimed or finished (a late commit). */
  'order.inversion': { component: ClaimComponent; id: string; stream: string; key: string | null };
  /** The lease advisor advises a longer lease (logged once, rate-limited). */
  'lease.advice': LeaseAdvice;
}

/** A QueueBox event name. @publicApi */
export type QueueBoxEventName = keyof QueueBoxEventMap;

/** A listener of one event; may be async (its rejection is logged, never thrown). @publicApi */
export type QueueBoxEventListener<E extends QueueBoxEventName> = (payload: QueueBoxEventMap[E]) => void | Promise<void>;
