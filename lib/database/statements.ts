import type { QueueBoxTable } from '../shared/interfaces/claim.interface.js';
import {
  blockedKeysDecoder,
  claimsAtRiskDecoder,
  completionDecoder,
  deadDetailDecoder,
  decodeBacklog,
  decodeDeadCounts,
  decodeDeadInbox,
  decodeDeadOutbox,
  decodeIds,
  decodeInboxRow,
  decodeNow,
  decodeOptionalId,
  decodeOutboxRow,
  decodePendingWork,
  decodePresent,
  decodeRenewals,
  decodeRowStates,
  decodeTableColumns,
} from './decode-rows.js';
import type { DeadRowPage, FencedRow, InboxInsertRow } from './statement-arguments.js';
import { once, perClaimer, perTable, perTableAndState, type BindContext } from './statement-definition.js';
import { CLAIMERS, QUEUEBOX_TABLES } from '../shared/queuebox.claimers.js';

/*
 * Every statement QueueBox sends, once for every database: what picks its text, its bound values in
 * placeholder order, its decoder. The port's methods and the dialects' texts derive from this table;
 * the outbox inserts and the claims are the catalog's composites.
 */

const decodeOutboxCompletion = completionDecoder(decodeOutboxRow);
const decodeInboxCompletion = completionDecoder(decodeInboxRow);
const byTable = <Result>(decoderOf: (table: QueueBoxTable) => Result): Record<QueueBoxTable, Result> => ({
  outbox: decoderOf('outbox'),
  inbox: decoderOf('inbox'),
});

const bindPage = ({ encode: e }: BindContext<unknown>, page: DeadRowPage): unknown[] => [
  e.id(page.afterId),
  e.int(page.limit),
  e.key(page.filter.stream),
  e.text(page.filter.errorContains),
  e.instant(page.filter.deadSince),
  e.instant(page.filter.deadBefore),
];

const bindNothing = (): unknown[] => [];

export const statements = {
  /** The database clock, now (what leases and due times are compared with). */
  databaseNow: once({ bind: bindNothing, decode: decodeNow }),
  /** The unfinished rows of both tables per stream, by the database clock (a test's drain). */
  pendingWork: once({ bind: bindNothing, decode: decodePendingWork }),
  /** Whether the schema `schema` exists. */
  schemaExists: once({ bind: ({ encode: e }, schema: string) => [e.identifier(schema)], decode: decodePresent }),
  /** QueueBox's two tables as the statements find them, and their columns (the start-up check). */
  tableColumns: once({
    bind: ({ encode: e, tables: { schema, outbox, inbox } }) => [
      e.identifier(outbox),
      e.identifier(inbox),
      ...(schema ? [e.identifier(schema)] : []),
    ],
    decode: decodeTableColumns,
  }),

  outboxBacklog: once({ bind: bindNothing, decode: decodeBacklog }),
  /** Inserts unless (source, idempotency key) exists; resolves to the new id, or undefined for a duplicate. */
  insertInbox: once({
    bind: ({ encode: e }, row: InboxInsertRow) => [
      e.key(row.source),
      e.key(row.idempotencyKey),
      e.key(row.key),
      e.text(row.headers),
      e.text(row.payload),
    ],
    decode: decodeOptionalId,
  }),
  /** The id of the row of (source, idempotency key), or undefined. */
  findInbox: once({
    bind: ({ encode: e }, source: string, idempotencyKey: string) => [e.key(source), e.key(idempotencyKey)],
    decode: decodeOptionalId,
  }),
  inboxBacklog: once({ bind: bindNothing, decode: decodeBacklog }),

  /** Extends one lease; the ids changed (one, or none when the claim was lost). */
  renew: perTable({
    bind: ({ encode: e }, row: FencedRow, leaseMs: number) => [e.id(row.id), e.uuid(row.token), e.int(leaseMs)],
    decode: decodeIds,
  }),
  /** Renews a group of claims; rows locked by another transaction are skipped, never waited for. */
  renewMany: perTable({
    bind: ({ encode: e }, rows: readonly FencedRow[], leaseMs: number) => [
      e.ids(rows.map((r) => r.id)),
      e.uuids(rows.map((r) => r.token)),
      e.int(leaseMs),
    ],
    decode: decodeRenewals,
    hot: true,
  }),
  /** Finishes fenced rows; with `handOffLeaseMs` claims each key's next row; `asyncCommit`: skip the WAL flush. */
  completeMany: perClaimer({
    bind: (
      { encode: e, asyncCommit: dialectCommitsAsync, variant: kind },
      rows: readonly FencedRow[],
      handOffLeaseMs?: number,
      asyncCommit?: boolean,
    ) => {
      const params = [
        e.ids(rows.map((r) => r.id)),
        e.uuids(rows.map((r) => r.token)),
        e.int(handOffLeaseMs ?? 0),
        e.flag(handOffLeaseMs !== undefined),
      ];
      if (CLAIMERS[kind].asyncMarks && dialectCommitsAsync) params.push(e.flag(asyncCommit === true));
      return params;
    },
    decodeBy: { outbox: decodeOutboxCompletion, relay: decodeInboxCompletion, pull: decodeInboxCompletion },
    hot: true,
    oneRow: { text: 'completeOne', when: (rows) => rows.length === 1 },
  }),
  retry: perTable({
    bind: ({ encode: e }, row: FencedRow, delayMs: number, error: string) => [
      e.id(row.id),
      e.uuid(row.token),
      e.int(delayMs),
      e.text(error),
    ],
    decode: decodeIds,
  }),
  deadLetter: perTable({
    bind: ({ encode: e }, row: FencedRow, error: string) => [e.id(row.id), e.uuid(row.token), e.text(error)],
    decode: decodeIds,
  }),
  /** Expired claims back to pending; for the inbox, only those of `sources` (the relay's). */
  reclaimExpired: perTable({
    bind: ({ encode: e, variant: table }, limit: number, sources: readonly string[] = []) =>
      QUEUEBOX_TABLES[table].reclaimByStream ? [e.int(limit), e.keys(sources)] : [e.int(limit)],
    decode: decodeIds,
  }),
  /** Deletes up to `limit` rows finished (`done`) or dead longer than `olderThanMs` ago. */
  purgeFinished: perTableAndState(['done', 'dead'] as const, {
    bind: ({ encode: e }, olderThanMs: number, limit: number) => [e.bigint(olderThanMs), e.int(limit)],
    decode: decodeIds,
  }),

  /** Dead rows of the outbox matching the page's filter, oldest first, after its id. */
  listDeadOutbox: once({ bind: bindPage, decode: decodeDeadOutbox }),
  listDeadInbox: once({ bind: bindPage, decode: decodeDeadInbox }),
  /** One dead row in full (the payload only `withPayload`); undefined when it is not dead. */
  inspectDead: perTable({
    bind: ({ encode: e }, id: string, withPayload: boolean) => [e.id(id), e.flag(withPayload)],
    decodeBy: byTable(deadDetailDecoder),
  }),
  /** Dead rows per destination (outbox) or source (inbox). */
  deadCounts: perTable({ bind: bindNothing, decode: decodeDeadCounts }),
  /** Dead rows back to pending; the ids that were dead. */
  replayDead: perTable({ bind: ({ encode: e }, ids: readonly string[]) => [e.ids(ids)], decode: decodeIds }),
  /** One chunk of a replay by filter: the page's dead rows back to pending, in one statement; their ids. */
  replayDeadMatching: perTable({ bind: bindPage, decode: decodeIds }),
  /** Deletes dead rows; the ids that were dead. */
  discardDead: perTable({ bind: ({ encode: e }, ids: readonly string[]) => [e.ids(ids)], decode: decodeIds }),
  /** One chunk of a discard by filter: deletes the page's dead rows, in one statement; their ids. */
  discardDeadMatching: perTable({ bind: bindPage, decode: decodeIds }),

  /** The state of each listed row that exists, in id order. */
  rowStates: perTable({ bind: ({ encode: e }, ids: readonly string[]) => [e.ids(ids)], decode: decodeRowStates }),
  /** Keys whose head row is retrying or dead, oldest heads first, at most `limit`. */
  blockedKeys: perTable({
    bind: ({ encode: e }, limit: number) => [e.int(limit)],
    decodeBy: byTable(blockedKeysDecoder),
  }),
  /** Rows in flight whose lease ends within `withinMs` (or ended), soonest first, at most `limit`. */
  claimsAtRisk: perTable({
    bind: ({ encode: e }, withinMs: number, limit: number) => [e.int(withinMs), e.int(limit)],
    decodeBy: byTable(claimsAtRiskDecoder),
  }),
};

/** The statement definitions' type: what the port's methods and the dialects' texts are derived from. */
export type Statements = typeof statements;
