import { describe, expect, it } from 'vitest';
import { WalkCursor } from '../../lib/engine/walk-cursor.js';
import type { ParameterEncoders } from '../../lib/database/parameter-encoders.interface.js';
import type { DialectProfile } from '../../lib/database/dialects/dialect-profile.interface.js';
import type { DialectTexts } from '../../lib/database/dialects/dialect-texts.interface.js';
import { mssqlDialect } from '../../lib/database/dialects/mssql/mssql.dialect.js';
import { postgresDialect } from '../../lib/database/dialects/postgres/postgres.dialect.js';
import { postgresTexts } from '../../lib/database/dialects/postgres/postgres-statements.js';
import type { ClaimRequest } from '../../lib/database/sql-dialect.interface.js';
import { StatementCatalog } from '../../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';

/*
 * The statement catalog builds every statement from a dialect's profile: what differs between
 * databases beyond SQL text and encoding is a capability of the profile. Each case changes one
 * capability of the PostgreSQL profile and checks that the statements follow it, whatever the
 * database's name.
 */

const tables = resolveOptions({ schema: 'app' }).tables;
const request: ClaimRequest = new WalkCursor().request(10, 1_000);
const idle: ClaimRequest = { ...request, afterIdle: true };
const row = { id: '7', token: 'a6f1e2b0-0000-4000-8000-000000000000' };

/** The PostgreSQL profile with some capabilities changed. */
const variant = (changes: Partial<DialectProfile<'postgres'>>): DialectProfile<'postgres'> => ({
  ...postgresDialect,
  ...changes,
});

/** Encoders that say which kind each value was bound as. */
const tagging = Object.fromEntries(
  [
    'id',
    'uuid',
    'key',
    'text',
    'int',
    'bigint',
    'flag',
    'instant',
    'identifier',
    'lockName',
    'ids',
    'uuids',
    'keys',
    'texts',
    'ints',
  ].map((kind) => [kind, (value: unknown) => `${kind}:${JSON.stringify(value)}`]),
) as unknown as ParameterEncoders;

describe('statement catalog', () => {
  it('takes the claim lock where the profile takes it always, else where asked (the relay always)', () => {
    const onRequest = new StatementCatalog(postgresDialect, tables);
    expect([
      onRequest.claimOutbox(['billing', 'sink'], request, { lock: false }).lock,
      onRequest.claimPull('s', request, { lock: false }).lock,
    ]).toEqual([undefined, undefined]);
    expect(onRequest.claimOutbox(['billing', 'sink'], request, { lock: true }).lock?.acquire.params).toEqual([
      'queuebox_outbox_claim_app.queuebox_outbox_messages',
    ]);
    expect(onRequest.claimPull('s', request, { lock: true }).lock?.acquire.params).toEqual([
      'queuebox_pull_app.queuebox_inbox_messages:s',
    ]);
    expect(onRequest.claimInbox(['s'], request).lock?.acquire.params).toEqual([
      'queuebox_inbox_claim_app.queuebox_inbox_messages',
    ]);
    expect(onRequest.claimLockAlways).toBe(false);

    const always = new StatementCatalog(
      variant({ claimLock: { ...postgresDialect.claimLock, taken: 'always' } }),
      tables,
    );
    expect(always.claimOutbox(['billing', 'sink'], request, { lock: false }).lock?.acquire.params).toEqual([
      'queuebox_outbox_claim_app.queuebox_outbox_messages',
    ]);
    expect(always.claimPull('s', request, { lock: false }).lock?.acquire.params).toEqual([
      'queuebox_pull_app.queuebox_inbox_messages:s',
    ]);
    expect(always.claimLockAlways).toBe(true);
  });

  it('hashes a claim lock name longer than the profile keeps, so that two long names stay two', () => {
    const catalog = new StatementCatalog(
      variant({ claimLock: { ...postgresDialect.claimLock, maxNameLength: 48 } }),
      tables,
    );
    const lockName = (source: string) =>
      String(catalog.claimPull(source, request, { lock: true }).lock!.acquire.params[0]);
    expect(lockName('s')).toBe('queuebox_pull_app.queuebox_inbox_messages:s');
    expect(lockName('orders-of-the-day')).toMatch(/^queuebox_[0-9a-f]{64}$/);
    expect(lockName('orders-of-the-dax')).not.toBe(lockName('orders-of-the-day'));
  });

  it('probes after an idle poll only where the profile has an idle probe, with the claimer’s sources', () => {
    expect(
      new StatementCatalog(postgresDialect, tables).claimOutbox(['billing', 'sink'], idle, { lock: false }).probe,
    ).toBeUndefined();
    const probing = new StatementCatalog(
      variant({ texts: { ...postgresTexts, dueProbe: (t, kind) => `probe ${kind} of ${t.outbox}` } }),
      tables,
    );
    expect(probing.claimOutbox(['billing', 'sink'], request, { lock: false }).probe).toBeUndefined();
    const probes = [
      probing.claimOutbox(['billing', 'sink'], idle, { lock: false }).probe!,
      probing.claimInbox(['a', 'b'], idle).probe!,
      probing.claimPull('a', idle, { lock: false }).probe!,
    ];
    expect(probes.map((probe) => [probe.sql, probe.params])).toEqual([
      ['probe outbox of queuebox_outbox_messages', [['billing', 'sink']]],
      ['probe relay of queuebox_outbox_messages', [['a', 'b']]],
      ['probe pull of queuebox_outbox_messages', ['a']],
    ]);
    expect(probes[0].decode([{ due: true }])).toBe(true);
  });

  it('names the hot statements only where the profile prepares and the option leaves it on', () => {
    const hot = (catalog: StatementCatalog) => [
      catalog.claimOutbox(['billing', 'sink'], request, { lock: false }).claim.name,
      catalog.completeMany('outbox', [row], 1).name,
      catalog.renewMany('inbox', [row], 1).name,
    ];
    const prepared = new StatementCatalog(postgresDialect, tables);
    expect(hot(prepared).every((name) => /^queuebox_[0-9a-f]{20}$/.test(name ?? ''))).toBe(true);
    expect(new Set(hot(prepared)).size).toBe(3);
    expect(hot(prepared)).toEqual(hot(new StatementCatalog(postgresDialect, tables)));
    expect(prepared.renew('outbox', row, 1).name).toBeUndefined();
    expect(hot(new StatementCatalog(postgresDialect, tables, { prepared: false }))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(hot(new StatementCatalog(variant({ prepares: false }), tables))).toEqual([undefined, undefined, undefined]);
  });

  it('carries a wake-up to the commit only where the profile has notifying inserts', () => {
    const message = { messageId: 'm', destination: 'd', key: null, headers: '{}', payload: '1', delayMs: 0 };
    const wakeUp = { channel: 'c', sender: 's' };
    const postgres = new StatementCatalog(postgresDialect, tables);
    expect(postgres.insertOutbox([message], wakeUp).sql).toContain('pg_notify($6, $7)');
    expect(postgres.insertOutbox([message], wakeUp).params.slice(5)).toEqual(['c', 's']);
    expect(postgres.insertOutbox([message, message], wakeUp).params.slice(6)).toEqual(['c', 's']);
    const silent = new StatementCatalog(variant({ texts: { ...postgresTexts, notifyingInserts: undefined } }), tables);
    expect(silent.insertOutbox([message], wakeUp)).toMatchObject({
      sql: postgres.insertOutbox([message]).sql,
      params: ['m', 'd', null, '{}', '1'],
    });
    expect(new StatementCatalog(mssqlDialect, tables).insertOutbox([message], wakeUp).params).toHaveLength(5);
  });

  it('binds each value through the profile’s encoder for its kind', () => {
    const catalog = new StatementCatalog(variant({ encode: tagging }), tables);
    const page = {
      afterId: '0',
      limit: 5,
      filter: { stream: 's', errorContains: null, deadSince: null, deadBefore: null },
    };
    const bounds: ClaimRequest = {
      batchSize: 10,
      leaseMs: 1_000,
      walkKeys: 3,
      windowRows: 4,
      cursor: { stream: 'r', key: 'k' },
    };
    expect(catalog.claimInbox(['s'], bounds).claim.params).toEqual([
      'int:10',
      'int:1000',
      'int:3',
      'int:4',
      'key:"r"',
      'key:"k"',
      'keys:["s"]',
    ]);
    expect(catalog.claimPull('s', bounds, { lock: true }).claim.params.slice(4)).toEqual([
      'key:"s"',
      'key:"k"',
      'keys:["s"]',
    ]);
    expect(catalog.claimPull('s', request, { lock: true }).lock!.acquire.params).toEqual([
      'lockName:"queuebox_pull_app.queuebox_inbox_messages:s"',
    ]);
    expect(
      catalog.insertOutbox([{ messageId: 'm', destination: 'd', key: null, headers: '{}', payload: '1', delayMs: 5 }])
        .params,
    ).toEqual(['uuids:["m"]', 'keys:["d"]', 'keys:[null]', 'texts:["{}"]', 'texts:["1"]', 'ints:[5]']);
    expect(catalog.completeMany('relay', [row]).params).toEqual([
      `ids:["7"]`,
      `uuids:["${row.token}"]`,
      'int:0',
      'flag:false',
    ]);
    expect(catalog.retry('outbox', row, 10, 'e').params).toEqual([
      'id:"7"',
      `uuid:"${row.token}"`,
      'int:10',
      'text:"e"',
    ]);
    expect(catalog.listDeadInbox(page).params).toEqual([
      'id:"0"',
      'int:5',
      'key:"s"',
      'text:null',
      'instant:null',
      'instant:null',
    ]);
    expect(catalog.purgeFinished('inbox', 'dead', 1, 2).params).toEqual(['bigint:1', 'int:2']);
    expect(catalog.inspectDead('outbox', '7', true).params).toEqual(['id:"7"', 'flag:true']);
    expect(catalog.reclaimExpired('inbox', 3, ['s']).params).toEqual(['int:3', 'keys:["s"]']);
    expect(catalog.schemaExists('app').params).toEqual(['identifier:"app"']);
  });

  it('refuses, at compile time, a dialect without a statement', () => {
    const { claimPull: _claimPull, renewMany: _renewMany, ...withoutTwo } = postgresTexts;
    // @ts-expect-error: a dialect's texts must have every statement of the definitions and every composite.
    const incomplete: DialectTexts = withoutTwo;
    expect(Object.keys(incomplete)).not.toContain('renewMany');
  });

  it('sends the one-row form only where the dialect has one, with the same parameters', () => {
    const oneRow = new StatementCatalog(postgresDialect, tables);
    const manyOnly = new StatementCatalog(variant({ texts: { ...postgresTexts, completeOne: undefined } }), tables);
    const many = oneRow.completeMany('pull', [row, row], 1);
    expect(oneRow.completeMany('pull', [row], 1).sql).not.toBe(many.sql);
    expect(manyOnly.completeMany('pull', [row], 1)).toMatchObject({
      sql: many.sql,
      params: oneRow.completeMany('pull', [row], 1).params,
    });
  });
});
