import type { ClaimComponent, QueueBoxTable } from './interfaces/claim.interface.js';

/*
 * What sets the two tables and the three claimers apart, one descriptor each: code asks a descriptor
 * instead of comparing names, and a new claimer is one entry here. Types-only imports, so every layer
 * can read it.
 */

export interface TableDescriptor<T extends QueueBoxTable = QueueBoxTable> {
  readonly name: T;
  /** A row's stream field and column: `destination` (outbox) or `source` (inbox). */
  readonly stream: 'destination' | 'source';
  readonly streams: 'destinations' | 'sources';
  /** The state a row's successful work ends in (a dead row is finished too, but failed). */
  readonly done: 'sent' | 'processed';
  /** Reclaim only the reclaiming claimer's streams: the relay must leave pull workers' rows alone. */
  readonly reclaimByStream: boolean;
}

export const QUEUEBOX_TABLES: { readonly [T in QueueBoxTable]: TableDescriptor<T> } = {
  outbox: { name: 'outbox', stream: 'destination', streams: 'destinations', done: 'sent', reclaimByStream: false },
  inbox: { name: 'inbox', stream: 'source', streams: 'sources', done: 'processed', reclaimByStream: true },
};

export const QUEUEBOX_TABLE_NAMES = Object.keys(QUEUEBOX_TABLES) as readonly QueueBoxTable[];

/** The stream fields of the tables (`destination`, `source`): a filter by one is a filter of its table only. */
export const STREAM_FIELDS: readonly TableDescriptor['stream'][] = Object.values(QUEUEBOX_TABLES).map(
  (table) => table.stream,
);

export function isQueueBoxTable(value: unknown): value is QueueBoxTable {
  return typeof value === 'string' && Object.hasOwn(QUEUEBOX_TABLES, value);
}

export interface ClaimerDescriptor<C extends ClaimComponent = ClaimComponent> {
  /** Its public name: the `component` of claims, errors, events and metrics. */
  readonly component: C;
  readonly table: TableDescriptor;
  readonly noun: string;
  /** One of its options as messages name it: `outbox.<name>`, `inbox.relay.<name>`, `@PullWorker(…, { <name> })`. */
  option(name: string, stream: string): string;
  readonly leaseOption: 'claimTimeoutMs' | 'leaseMs';
  /** `together`: one walk over the keys of every stream (the outbox). `in-turn`: one stream per claim. */
  readonly walk: 'together' | 'in-turn';
  /** A worker per stream (a pull worker per source), each with its own loop; else one worker for all streams. */
  readonly workerPerStream: boolean;
  /**
   * Its work sends the message out before the finishing write (the outbox's publish), so a lost
   * claim means a duplicate send. Otherwise the work commits with its finishing write.
   */
  readonly sendsBeforeFinish: boolean;
  /** Its claims take the rows whose lease ended as well: it runs no reclaim step of its own. */
  readonly claimsExpired: boolean;
  /** Autocommit claims and finishing writes may skip the WAL flush (`outbox.asyncMarks`). */
  readonly asyncMarks: boolean;
  /** Shutdown: `finish` lets work in flight run up to the timeout; `release` stops it and gives rows back. */
  readonly shutdown: 'finish' | 'release';
}

export const CLAIMERS: { readonly [C in ClaimComponent]: ClaimerDescriptor<C> } = {
  outbox: {
    component: 'outbox',
    table: QUEUEBOX_TABLES.outbox,
    noun: 'outbox message',
    option: (name) => `outbox.${name}`,
    leaseOption: 'claimTimeoutMs',
    walk: 'together',
    workerPerStream: false,
    sendsBeforeFinish: true,
    claimsExpired: false,
    asyncMarks: true,
    shutdown: 'finish',
  },
  relay: {
    component: 'relay',
    table: QUEUEBOX_TABLES.inbox,
    noun: 'inbox message (relay)',
    option: (name) => `inbox.relay.${name}`,
    leaseOption: 'claimTimeoutMs',
    walk: 'in-turn',
    workerPerStream: false,
    sendsBeforeFinish: false,
    claimsExpired: false,
    asyncMarks: false,
    shutdown: 'finish',
  },
  pull: {
    component: 'pull',
    table: QUEUEBOX_TABLES.inbox,
    noun: 'pulled message',
    option: (name, source) => `@PullWorker('${source}', { ${name} })`,
    leaseOption: 'leaseMs',
    walk: 'in-turn',
    workerPerStream: true,
    sendsBeforeFinish: false,
    claimsExpired: true,
    asyncMarks: false,
    shutdown: 'release',
  },
};

export const CLAIM_COMPONENTS = Object.keys(CLAIMERS) as readonly ClaimComponent[];

/** A claimer's loop name (the `loop` label, health, admin): `outbox`, `relay`, or `pull:<source>`. */
export function loopName(claimer: ClaimerDescriptor, stream = ''): string {
  return claimer.workerPerStream ? `${claimer.component}:${stream}` : claimer.component;
}
