import type { QueueBoxTable } from './claim.interface.js';

/**
 * Carries wake-ups between replicas: "rows of this table may be claimable now". A wake-up carries
 * no message data, and losing one costs latency only (the poll interval is the fallback). The
 * dialect provides one where its database can (PostgreSQL: LISTEN/NOTIFY); another transport (a
 * pub-sub the application already runs) can take its place behind this interface.
 */
export interface WakeUpTransport {
  /**
   * Starts receiving the wake-ups other instances send; `onWake(table)` is called for each, and
   * for every table after each (re)connection, since a wake-up may have been missed meanwhile.
   * Failures are the transport's to log and retry; this never throws.
   */
  listen(onWake: (table: QueueBoxTable) => void): Promise<void>;
  /** Sends one wake-up for `table`; the sender does not receive its own. Failures are logged, never thrown. */
  send(table: QueueBoxTable): Promise<void>;
  /** Stops listening and waits for the sends in progress. */
  close(): Promise<void>;
  /**
   * Where the database can deliver a wake-up with the commit of the transaction that writes the
   * rows (PostgreSQL: NOTIFY inside that transaction): what the write statement sends. Absent:
   * wake-ups are sent after the commit only.
   */
  withCommit?(table: QueueBoxTable): CommitWakeUp;
}

/** A wake-up that a write statement carries to its transaction's commit. */
export interface CommitWakeUp {
  channel: string;
  /** The sending instance (its own listener ignores it). */
  sender: string;
}
