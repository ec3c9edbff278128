import type { ClaimComponent, QueueBoxTable } from './interfaces/claim.interface.js';

/*
 * What sets QueueBox's two tables and its three claimers apart, one descriptor each. Code asks a
 * descriptor what differs (a table's stream, a claimer's lease option, whether its claims take
 * expired rows) instead of comparing names; a new claimer is one entry here, and the compiler
 * names every table keyed by claimer that lacks it. Plain data that imports types only, so every
 * layer reads it: the dialects, the engine, the features and the surfaces.
 */

/** What sets a QueueBox table apart. */
export interface TableDescriptor<T extends QueueBoxTable = QueueBoxTable> {
  readonly name: T;
  /**
   * What names a row's stream, as a message field, a filter and a column: where an outbox row goes
   * (`destination`), where an inbox row came from (`source`).
   */
  readonly stream: 'destination' | 'source';
  /** The stream in prose, plural. */
  readonly streams: 'destinations' | 'sources';
  /** The state a row's successful work ends in (a dead row is finished too, but failed). */
  readonly done: 'sent' | 'processed';
  /**
   * Its reclaim step returns the expired claims of the reclaiming claimer's streams only: the
   * inbox's relay must leave pull workers' rows alone (their claims take expired rows themselves).
   */
  readonly reclaimByStream: boolean;
}

/** The outbox and the inbox. */
export const QUEUEBOX_TABLES: { readonly [T in QueueBoxTable]: TableDescriptor<T> } = {
  outbox: { name: 'outbox', stream: 'destination', streams: 'destinations', done: 'sent', reclaimByStream: false },
  inbox: { name: 'inbox', stream: 'source', streams: 'sources', done: 'processed', reclaimByStream: true },
};

/** The tables' names, in a fixed order (the order texts are built in). */
export const QUEUEBOX_TABLE_NAMES = Object.keys(QUEUEBOX_TABLES) as readonly QueueBoxTable[];

/** The stream fields of the tables (`destination`, `source`): a filter by one is a filter of its table only. */
export const STREAM_FIELDS: readonly TableDescriptor['stream'][] = Object.values(QUEUEBOX_TABLES).map(
  (table) => table.stream,
);

/** Whether `value` names a QueueBox table (a table name read from a database row, a request, a flag). */
export function isQueueBoxTable(value: unknown): value is QueueBoxTable {
  return typeof value === 'string' && Object.hasOwn(QUEUEBOX_TABLES, value);
}

/** What sets a claimer apart. */
export interface ClaimerDescriptor<C extends ClaimComponent = ClaimComponent> {
  /**
   * Its one public name: the `component` of claims, `ClaimLostError`, events, lease advice and the
   * metrics' `component` label.
   */
  readonly component: C;
  /** The table it claims rows of. */
  readonly table: TableDescriptor;
  /** What a row is, in log lines. */
  readonly noun: string;
  /**
   * One of its options as messages name it, where an application sets it: `outbox.<name>`,
   * `inbox.relay.<name>`, or a pull worker's `@PullWorker('<source>', { <name> })`.
   */
  option(name: string, stream: string): string;
  /** The option that sets its lease, as the application spells it. */
  readonly leaseOption: 'claimTimeoutMs' | 'leaseMs';
  /**
   * How its claims go over its streams. `together`: one walk over the keys of every stream it
   * works on (the outbox's destinations). `in-turn`: the keys of one stream per claim, the streams
   * taken in turn.
   */
  readonly walk: 'together' | 'in-turn';
  /**
   * A worker per stream (a pull worker per source), each with a loop of its own named after its
   * stream; otherwise one worker claims for a list of streams. Its claims then take one stream, and
   * its loops have no one pace to report under the claimer's name.
   */
  readonly workerPerStream: boolean;
  /**
   * Its work sends the message out of the database before the finishing write (the outbox's
   * publish): a finishing write that lost its claim leaves a message sent that the new owner sends
   * again. Otherwise the work commits with its finishing write, or not at all.
   */
  readonly sendsBeforeFinish: boolean;
  /** Its claims take the rows whose lease ended as well: it runs no reclaim step of its own. */
  readonly claimsExpired: boolean;
  /**
   * Its autocommit claims and finishing writes may commit without waiting for the WAL flush
   * (`outbox.asyncMarks`); never its writes in a caller's transaction.
   */
  readonly asyncMarks: boolean;
  /**
   * What shutdown does with its work in flight: `finish` lets it run, up to the shutdown timeout;
   * `release` tells it to stop, and gives its rows back at once.
   */
  readonly shutdown: 'finish' | 'release';
}

/** The outbox poller, the inbox relay and pull workers. */
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

/** The claimers' names, in a fixed order (the order texts are built in). */
export const CLAIM_COMPONENTS = Object.keys(CLAIMERS) as readonly ClaimComponent[];

/**
 * The name of a claimer's loop: the `loop` label of `queuebox_loop_*`, and the loop in health and
 * the admin. The claimer's name (`outbox`, `relay`), or with a worker per stream, its name and the
 * stream (`pull:<source>`).
 */
export function loopName(claimer: ClaimerDescriptor, stream = ''): string {
  return claimer.workerPerStream ? `${claimer.component}:${stream}` : claimer.component;
}
