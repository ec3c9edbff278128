import { createHash } from 'node:crypto';
import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import type { ClaimRequest, ClaimTable, FencedRow, InboxInsertRow, OutboxInsertRow, SqlDialect, SqlStatement } from '../sql-dialect.interface.js';
import * as claimLockSql from './claim-lock.sql.js';
import * as deadLetters from './dead-letters.sql.js';
import * as fenced from './fenced-writes.sql.js';
import * as notifySql from './notify.sql.js';
import * as inbox from './inbox.sql.js';
import * as outbox from './outbox.sql.js';
import * as pull from './pull.sql.js';
import * as retention from './retention.sql.js';

/** PostgreSQL: `$n` placeholders, `statement_timestamp()` as the clock, SKIP LOCKED claims. */
export class PostgresDialect implements SqlDialect {
  readonly type = 'postgres' as const;
  private readonly text: Record<string, string>;
  private readonly names: Record<string, string> = {};

  /**
   * `prepared`: give the hot statements (claims, completions, renewals) a name, so that they run
   * as prepared statements (planned once per connection). Off behind a pooler that does not keep
   * prepared statements across transactions (PgBouncer before 1.21 in transaction mode).
   */
  constructor(
    readonly tables: ResolvedTableNames,
    private readonly prepared = true,
  ) {
    // Statement text depends only on the table names: build it once.
    this.text = {
      insertOutbox: outbox.insertOutbox(tables),
      insertOutboxOne: outbox.insertOutboxOne(tables),
      claimOutbox: outbox.claimOutbox(tables),
      outboxBacklog: outbox.outboxBacklog(tables),
      insertInbox: inbox.insertInbox(tables),
      findInbox: inbox.findInbox(tables),
      claimInbox: inbox.claimInbox(tables),
      inboxBacklog: inbox.inboxBacklog(tables),
      claimPull: pull.claimPull(tables),
      'completeMany:outbox': fenced.completeMany(tables, 'outbox', outbox.OUTBOX_CLAIM_COLUMNS),
      'completeMany:relay': fenced.completeMany(tables, 'relay', inbox.INBOX_CLAIM_COLUMNS),
      'completeMany:pull': fenced.completeMany(tables, 'pull', inbox.INBOX_CLAIM_COLUMNS),
      ...Object.fromEntries(
        (['outbox', 'inbox'] as const).flatMap((table) => [
          [`renew:${table}`, fenced.renew(tables, table)],
          [`renewMany:${table}`, fenced.renewMany(tables, table)],
          [`retry:${table}`, fenced.retry(tables, table)],
          [`deadLetter:${table}`, fenced.deadLetter(tables, table)],
          [`reclaimExpired:${table}`, fenced.reclaimExpired(tables, table)],
          [`listDead:${table}`, deadLetters.listDead(tables, table)],
          [`replayDead:${table}`, deadLetters.replayDead(tables, table)],
          [`purge:${table}:done`, retention.purgeFinished(tables, table, 'done')],
          [`purge:${table}:dead`, retention.purgeFinished(tables, table, 'dead')],
        ]),
      ),
    };
  }

  insertOutbox(rows: readonly OutboxInsertRow[]): SqlStatement {
    if (rows.length === 1 && rows[0].delayMs === 0) {
      const [row] = rows;
      return { sql: this.text.insertOutboxOne, params: [row.messageId, row.destination, row.key, row.headers, row.payload] };
    }
    return {
      sql: this.text.insertOutbox,
      params: [
        rows.map((r) => r.messageId),
        rows.map((r) => r.destination),
        rows.map((r) => r.key),
        rows.map((r) => r.headers),
        rows.map((r) => r.payload),
        rows.map((r) => r.delayMs),
      ],
    };
  }

  claimLock(table: ClaimTable): readonly SqlStatement[] {
    // The documented lock names (docs/concepts/claims-and-leases.md, "Locks"), keyed on the (schema-qualified) table name: advisory locks are
    // per database, and instances on other schemas must not wait for each other.
    return this.lock(`queuebox_${table}_claim_${this.lockTableName(table)}`);
  }

  pullClaimLock(source: string): readonly SqlStatement[] {
    // Per source: pull workers of different sources never wait for each other.
    return this.lock(`queuebox_pull_${this.lockTableName('inbox')}:${source}`);
  }

  /** A hot statement: named after its text, so that every connection prepares it once. */
  private hot(key: string, params: unknown[]): SqlStatement {
    const sql = this.text[key];
    if (!this.prepared) return { sql, params };
    this.names[key] ??= `queuebox_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    return { sql, params, name: this.names[key] };
  }

  private lockTableName(table: ClaimTable): string {
    return this.tables.schema ? `${this.tables.schema}.${this.tables[table]}` : this.tables[table];
  }

  claimPull(source: string, request: ClaimRequest): SqlStatement {
    return this.hot('claimPull', [...claimParams({ ...request, cursor: { stream: source, key: request.cursor.key } }), [source]]);
  }

  private lock(name: string): readonly SqlStatement[] {
    return [
      { sql: claimLockSql.claimLockTimeout(), params: [] },
      { sql: claimLockSql.claimLock(), params: [name] },
    ];
  }

  insertInbox(row: InboxInsertRow): SqlStatement {
    return { sql: this.text.insertInbox, params: [row.source, row.idempotencyKey, row.key, row.headers, row.payload] };
  }

  findInbox(source: string, idempotencyKey: string): SqlStatement {
    return { sql: this.text.findInbox, params: [source, idempotencyKey] };
  }

  claimInbox(sources: readonly string[], request: ClaimRequest): SqlStatement {
    return this.hot('claimInbox', [...claimParams(request), [...sources]]);
  }

  inboxBacklog(): SqlStatement {
    return { sql: this.text.inboxBacklog, params: [] };
  }

  claimOutbox(request: ClaimRequest): SqlStatement {
    return this.hot('claimOutbox', claimParams(request));
  }

  renew(table: ClaimTable, row: FencedRow, leaseMs: number): SqlStatement {
    return { sql: this.text[`renew:${table}`], params: [row.id, row.token, leaseMs] };
  }

  renewMany(table: ClaimTable, rows: readonly FencedRow[], leaseMs: number): SqlStatement {
    return this.hot(`renewMany:${table}`, [rows.map((r) => r.id), rows.map((r) => r.token), leaseMs]);
  }

  completeMany(kind: 'outbox' | 'relay' | 'pull', rows: readonly FencedRow[], handOffLeaseMs?: number): SqlStatement {
    return this.hot(`completeMany:${kind}`, [rows.map((r) => r.id), rows.map((r) => r.token), handOffLeaseMs ?? 0, handOffLeaseMs !== undefined]);
  }

  retry(table: ClaimTable, row: FencedRow, delayMs: number, error: string): SqlStatement {
    return { sql: this.text[`retry:${table}`], params: [row.id, row.token, delayMs, error] };
  }

  deadLetter(table: ClaimTable, row: FencedRow, error: string): SqlStatement {
    return { sql: this.text[`deadLetter:${table}`], params: [row.id, row.token, error] };
  }

  reclaimExpired(table: ClaimTable, limit: number, sources: readonly string[] = []): SqlStatement {
    return { sql: this.text[`reclaimExpired:${table}`], params: table === 'inbox' ? [limit, [...sources]] : [limit] };
  }

  listDead(table: ClaimTable, afterId: string, limit: number): SqlStatement {
    return { sql: this.text[`listDead:${table}`], params: [afterId, limit] };
  }

  purgeFinished(table: ClaimTable, state: 'done' | 'dead', olderThanMs: number, limit: number): SqlStatement {
    return { sql: this.text[`purge:${table}:${state}`], params: [olderThanMs, limit] };
  }

  replayDead(table: ClaimTable, ids: readonly string[]): SqlStatement {
    return { sql: this.text[`replayDead:${table}`], params: [[...ids]] };
  }

  outboxBacklog(): SqlStatement {
    return { sql: this.text.outboxBacklog, params: [] };
  }

  wakeChannel(table: ClaimTable): string {
    const channel = ['queuebox', this.tables.schema, this.tables[table]].filter(Boolean).join('_');
    // PostgreSQL channel names are identifiers: 63 bytes at most.
    return channel.length <= 63 ? channel : `queuebox_${createHash('sha1').update(channel).digest('hex')}`;
  }

  notify(channel: string, senderId: string): SqlStatement {
    return { sql: notifySql.notify(), params: [channel, senderId] };
  }

  listen(channel: string): SqlStatement {
    return { sql: notifySql.listen(channel), params: [] };
  }

  unlistenAll(): SqlStatement {
    return { sql: notifySql.unlistenAll(), params: [] };
  }
}

/** $1 … $6 of every claim statement (claim.sql.ts). */
function claimParams(request: ClaimRequest): unknown[] {
  return [request.batchSize, request.leaseMs, request.walkKeys, request.windowRows, request.cursor.stream, request.cursor.key];
}
