import { describe, expect, it } from 'vitest';
import { fence } from '../../lib/database/dialects/postgres/fence.sql.js';
import { wakeChannel } from '../../lib/database/dialects/postgres/notify-transport.js';
import { postgresDialect } from '../../lib/database/dialects/postgres/postgres.dialect.js';
import { postgresEncoders } from '../../lib/database/dialects/postgres/postgres-parameters.js';
import { createInboxTable, createOutboxTable, upgradeToV2 } from '../../lib/database/dialects/postgres/schema.sql.js';
import { WalkCursor } from '../../lib/engine/walk-cursor.js';
import type { ClaimPlan, QueueBoxTable } from '../../lib/database/sql-dialect.interface.js';
import { StatementCatalog } from '../../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { InvalidArgumentError } from '../../lib/shared/errors/invalid-argument.error.js';

const tables = resolveOptions({ schema: 'app', tables: { outbox: 'my_outbox', inbox: 'my_inbox' } }).tables;
const dialect = new StatementCatalog(postgresDialect, tables);
const row = { id: '7', token: 'a6f1e2b0-0000-4000-8000-000000000000' };
const request = new WalkCursor().request(10, 1_000);
const claims = {
  outbox: dialect.claimOutbox(['billing', 'sink'], request, { lock: false }),
  relay: dialect.claimInbox(['s'], request),
  pull: dialect.claimPull('s', request, { lock: false }),
};

/** Every statement that finishes or extends a claim. */
const fencedStatements = (table: QueueBoxTable) => ({
  renew: dialect.renew(table, row, 1_000),
  retry: dialect.retry(table, row, 10, 'e'),
  deadLetter: dialect.deadLetter(table, row, 'e'),
});

describe('PostgreSQL dialect', () => {
  it.each(['outbox', 'inbox'] as const)('embeds the one fence predicate in every fenced write of the %s', (table) => {
    for (const [name, statement] of Object.entries(fencedStatements(table))) {
      expect(statement.sql, name).toContain(fence('m', '$1::bigint', '$2::uuid'));
      expect(statement.sql, name).toMatch(/RETURNING m\.id/);
      expect(statement.params.slice(0, 2), name).toEqual([row.id, row.token]);
    }
    const rows = [row, { id: '8', token: '00000000-0000-4000-8000-000000000008' }];
    const completions =
      table === 'outbox'
        ? [(claims: typeof rows) => dialect.completeMany('outbox', claims, 1_000)]
        : (['relay', 'pull'] as const).map(
            (kind) => (claims: typeof rows) => dialect.completeMany(kind, claims, 1_000),
          );
    for (const complete of completions) {
      // Many rows: each fenced by its own token; one row: the one-row form, the same fence and parameters.
      expect(complete(rows).sql).toContain(fence('m', 'c.id', 'c.token'));
      expect(complete([row]).sql).toContain(fence('m', '($1::bigint[])[1]', '($2::uuid[])[1]'));
      expect(complete([row]).params.slice(0, 2)).toEqual([`{${row.id}}`, `{${row.token}}`]);
      expect(complete([row]).params.slice(2)).toEqual(complete(rows).params.slice(2));
      expect(complete(rows).params.slice(0, 2)).toEqual([`{7,8}`, `{${row.token},${rows[1].token}}`]);
    }
    expect(dialect.renewMany(table, [row], 1_000).sql).toContain(fence('m', 'c.id', 'c.token'));
  });

  it('binds lists of ids and UUIDs as array literals, and any other list as an array node-postgres escapes', () => {
    expect(postgresEncoders.ids(['1', '22', '9223372036854775807'])).toBe('{1,22,9223372036854775807}');
    expect(postgresEncoders.uuids([row.token])).toBe(`{${row.token}}`);
    expect(postgresEncoders.ids([])).toBe('{}');
    // An element that is not an id's or a UUID's text would change the array's meaning unquoted.
    for (const odd of ['1,2', '"1"', 'NULL', '', '{1}', '1 ', 'a\\b'])
      expect(postgresEncoders.ids(['1', odd]), odd).toEqual(['1', odd]);
    expect(postgresEncoders.keys(['a,b'])).toEqual(['a,b']);
  });

  it('claims with literal states only, so that the planner can use the partial indexes', () => {
    for (const statement of Object.values(claims).map((plan) => plan.claim)) {
      expect(statement.sql).not.toMatch(/state\s*=\s*\$/);
      expect(statement.sql).toContain('FOR UPDATE OF o SKIP LOCKED');
    }
  });

  it('uses the database clock of the statement, never now()', () => {
    const all = [
      ...Object.values(fencedStatements('outbox')),
      ...Object.values(claims).map((plan) => plan.claim),
      dialect.reclaimExpired('outbox', 10),
      dialect.insertOutbox([]),
      dialect.completeMany('outbox', [row], 1),
      dialect.completeMany('outbox', [row, row], 1),
      dialect.renewMany('inbox', [row], 1),
      dialect.reclaimExpired('inbox', 10),
      dialect.replayDead('outbox', ['1']),
    ].map((statement) => statement.sql);
    for (const sql of all) {
      expect(sql).not.toMatch(/\bnow\(\)|CURRENT_TIMESTAMP|clock_timestamp/i);
    }
    expect(fence('m', '$1', '$2')).toContain('lease_expires_at > statement_timestamp()');
  });

  it('puts every value in parameters and only quoted, validated identifiers in the text', () => {
    const insert = dialect.insertOutbox([
      { messageId: 'id', destination: "d'; drop", key: null, headers: '{}', payload: '"p"', delayMs: 0 },
    ]);
    expect(insert.sql).not.toContain('drop');
    expect(insert.params[1]).toBe("d'; drop");
    // A delayed message takes the general form, which computes next_attempt_at from the clock.
    const delayed = dialect.insertOutbox([
      { messageId: 'id', destination: 'd', key: null, headers: '{}', payload: '"p"', delayMs: 5 },
    ]);
    expect(delayed.sql).toContain('unnest');
    expect(delayed.params[5]).toEqual([5]);
    const many = dialect.insertOutbox(
      [0, 1].map((n) => ({
        messageId: `id${n}`,
        destination: "d'; drop",
        key: null,
        headers: '{}',
        payload: '"p"',
        delayMs: 0,
      })),
    );
    expect(many.sql).not.toContain('drop');
    expect(many.params[1]).toEqual(["d'; drop", "d'; drop"]);
    expect(insert.sql).toContain('"app"."my_outbox"');
  });

  it('takes the claim lock in its own statements, before the claim, where asked for (always for the relay)', () => {
    const lockOf = (plan: ClaimPlan<unknown>) => plan.lock!;
    const outboxLock = lockOf(dialect.claimOutbox(['billing', 'sink'], request, { lock: true }));
    expect([...outboxLock.setup, outboxLock.acquire].map((statement) => statement.sql)).toEqual([
      "SET LOCAL lock_timeout = '10s'",
      "SELECT true AS granted FROM pg_advisory_xact_lock(hashtext('queuebox'), hashtext($1)) AS l",
    ]);
    expect(outboxLock.acquire.decode([{ granted: true }])).toBe(true);
    // Keyed on the schema-qualified table: instances on other schemas never wait for each other.
    expect(outboxLock.acquire.params).toEqual(['queuebox_outbox_claim_app.my_outbox']);
    expect(
      lockOf(
        new StatementCatalog(postgresDialect, resolveOptions({}).tables).claimOutbox(['billing', 'sink'], request, {
          lock: true,
        }),
      ).acquire.params,
    ).toEqual(['queuebox_outbox_claim_queuebox_outbox_messages']);
    expect(lockOf(claims.relay).acquire.params).toEqual(['queuebox_inbox_claim_app.my_inbox']);
    expect(lockOf(dialect.claimPull('payments', request, { lock: true })).acquire.params).toEqual([
      'queuebox_pull_app.my_inbox:payments',
    ]);
    // Without the option, outbox and pull claims run alone, in autocommit.
    expect([claims.outbox.lock, claims.pull.lock, claims.outbox.probe]).toEqual([undefined, undefined, undefined]);
  });

  it('keeps wake-up channel names within PostgreSQL’s 63 bytes', () => {
    expect(wakeChannel(tables, 'outbox')).toBe('queuebox_app_my_outbox');
    const long = resolveOptions({ schema: 's'.repeat(63), tables: { outbox: 'o'.repeat(48) } }).tables;
    expect(wakeChannel(long, 'outbox').length).toBeLessThanOrEqual(63);
  });

  it('binds the table names of the start-up check, the schema last when there is one', () => {
    expect(dialect.tableColumns().params).toEqual(['my_outbox', 'my_inbox', 'app']);
    expect(new StatementCatalog(postgresDialect, resolveOptions({}).tables).tableColumns().params).toEqual([
      'queuebox_outbox_messages',
      'queuebox_inbox_messages',
    ]);
  });

  it('drops only a schema of its own', () => {
    expect(() => new StatementCatalog(postgresDialect, resolveOptions({}).tables).dropSchema()).toThrow(
      InvalidArgumentError,
    );
    expect(dialect.schemaExists('app').params).toEqual(['app']);
  });

  it('generates the statements of the snapshot', () => {
    const statements = {
      insertOutbox: dialect.insertOutbox([]).sql,
      insertOutboxOne: dialect.insertOutbox([
        { messageId: 'm', destination: 'd', key: null, headers: '{}', payload: '1', delayMs: 0 },
      ]).sql,
      insertOutboxNotifying: dialect.insertOutbox([], { channel: 'c', sender: 's' }).sql,
      insertOutboxOneNotifying: dialect.insertOutbox(
        [{ messageId: 'm', destination: 'd', key: null, headers: '{}', payload: '1', delayMs: 0 }],
        { channel: 'c', sender: 's' },
      ).sql,
      claimOutbox: claims.outbox.claim.sql,
      ...Object.fromEntries(
        Object.entries(fencedStatements('outbox')).map(([name, statement]) => [`outbox.${name}`, statement.sql]),
      ),
      ...Object.fromEntries(
        Object.entries(fencedStatements('inbox')).map(([name, statement]) => [`inbox.${name}`, statement.sql]),
      ),
      completeManyOutbox: dialect.completeMany('outbox', [], 1).sql,
      completeManyPull: dialect.completeMany('pull', [], 1).sql,
      completeOneOutbox: dialect.completeMany('outbox', [row], 1).sql,
      completeOnePull: dialect.completeMany('pull', [row], 1).sql,
      renewManyOutbox: dialect.renewMany('outbox', [], 1).sql,
      reclaimExpired: dialect.reclaimExpired('outbox', 1).sql,
      outboxBacklog: dialect.outboxBacklog().sql,
      insertInbox: dialect.insertInbox({ source: 's', idempotencyKey: 'k', key: null, headers: '{}', payload: '1' })
        .sql,
      findInbox: dialect.findInbox('s', 'k').sql,
      claimInbox: claims.relay.claim.sql,
      inboxBacklog: dialect.inboxBacklog().sql,
      claimPull: claims.pull.claim.sql,
      pullClaimLock: [...claims.relay.lock!.setup, claims.relay.lock!.acquire].map((statement) => statement.sql),
      listDeadOutbox: dialect.listDeadOutbox({
        afterId: '0',
        limit: 1,
        filter: { stream: null, errorContains: null, deadSince: null, deadBefore: null },
      }).sql,
      inspectDeadInbox: dialect.inspectDead('inbox', '1', true).sql,
      replayDeadMatchingOutbox: dialect.replayDeadMatching('outbox', {
        afterId: '0',
        limit: 1,
        filter: { stream: null, errorContains: null, deadSince: null, deadBefore: null },
      }).sql,
      discardDeadInbox: dialect.discardDead('inbox', ['1']).sql,
      blockedKeysOutbox: dialect.blockedKeys('outbox', 1).sql,
      claimsAtRiskInbox: dialect.claimsAtRisk('inbox', 1, 1).sql,
      rowStatesOutbox: dialect.rowStates('outbox', ['1']).sql,
      replayDeadInbox: dialect.replayDead('inbox', ['1']).sql,
      purgeSentOutbox: dialect.purgeFinished('outbox', 'done', 1, 1).sql,
      purgeDeadInbox: dialect.purgeFinished('inbox', 'dead', 1, 1).sql,
      outboxSchema: createOutboxTable(tables),
      inboxSchema: createInboxTable(tables),
      schemaV2: upgradeToV2(tables),
      databaseNow: dialect.databaseNow().sql,
      pendingWork: dialect.pendingWork().sql,
      schemaExists: dialect.schemaExists('app').sql,
      tableColumns: dialect.tableColumns().sql,
      tableColumnsOnSearchPath: new StatementCatalog(postgresDialect, resolveOptions({}).tables).tableColumns().sql,
      dropSchema: dialect.dropSchema().sql,
    };
    expect(statements).toMatchSnapshot();
  });
});
