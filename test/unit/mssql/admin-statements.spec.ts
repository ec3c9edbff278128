import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatementRunner } from '../../../lib/database/statement-runner.js';
import { mssqlDialect } from '../../../lib/database/dialects/mssql/mssql.dialect.js';
import type { DeadRowPage, SqlStatement } from '../../../lib/database/sql-dialect.interface.js';
import { StatementCatalog } from '../../../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';
import { createFakeMssql, type FakeMssql, type FakeResponse } from '../../fixtures/fake-mssql/index.js';

/*
 * The admin's SQL Server statements (dead letters, blocked keys, claims at risk): what the parsers
 * cannot check (parameter counts, the clock, typed values of constant length, time parameters as
 * instants) and how their rows decode from tedious's types. What they select is for a live server.
 */

const dialect = new StatementCatalog(
  mssqlDialect,
  resolveOptions({ schema: 'messaging', tables: { outbox: 'o', inbox: 'i' } }).tables,
);
const GUID = '0193B2C4-0000-7000-8000-00000000000A';
const since = new Date('2026-01-01T10:00:00.000Z');
const page: DeadRowPage = {
  afterId: '12',
  limit: 50,
  filter: { stream: 'sink', errorContains: '50%', deadSince: since, deadBefore: null },
};

const statements: Record<string, SqlStatement> = {
  listDeadOutbox: dialect.listDeadOutbox(page),
  listDeadInbox: dialect.listDeadInbox(page),
  inspectDeadOutbox: dialect.inspectDead('outbox', '7', true),
  inspectDeadInbox: dialect.inspectDead('inbox', '7', false),
  replayDeadMatching: dialect.replayDeadMatching('inbox', page),
  discardDead: dialect.discardDead('outbox', ['1', '2']),
  discardDeadMatching: dialect.discardDeadMatching('outbox', page),
  blockedKeys: dialect.blockedKeys('inbox', 10),
  claimsAtRisk: dialect.claimsAtRisk('outbox', 30_000, 10),
  rowStates: dialect.rowStates('inbox', ['1', '2']),
};

describe('SQL Server admin statements', () => {
  it.each(Object.entries(statements))(
    '%s binds exactly its parameters, uses the UTC clock only and never LIKE',
    (_name, statement) => {
      const used = [...statement.sql.matchAll(/@(\d+)/g)].map((match) => Number(match[1]));
      expect(Math.max(...used) + 1).toBe(statement.params.length);
      expect(statement.sql).not.toMatch(/GETDATE|SYSDATETIME\(\)|CURRENT_TIMESTAMP|\bLIKE\b/i);
      expect(statement.sql).toContain('[messaging].');
    },
  );

  it('changes only dead rows, and counts them by OUTPUT', () => {
    for (const name of ['replayDeadMatching', 'discardDead', 'discardDeadMatching']) {
      expect(statements[name].sql).toMatch(/OUTPUT (inserted|deleted)\.id/);
      expect(statements[name].sql).toContain("m.state = 'dead'");
    }
  });

  describe('through the driver (fake mssql)', () => {
    let fake: FakeMssql;
    let dataSource: DataSource;
    let runner: StatementRunner;
    let respond: FakeResponse | undefined;

    beforeEach(async () => {
      respond = undefined;
      fake = createFakeMssql({ respond: () => respond });
      dataSource = await new DataSource({
        type: 'mssql',
        host: 'fake',
        username: 'u',
        password: 'p',
        database: 'app',
        driver: fake.driver,
      }).initialize();
      runner = new StatementRunner(dataSource, dialect);
    });
    afterEach(async () => {
      await dataSource?.destroy();
    });

    it('sends the filter as typed values: a bigint id, constant-length text, instants as datetimeoffset', async () => {
      respond = { recordset: [] };
      await runner.run(statements.listDeadOutbox);
      const [query] = fake.queries();
      expect(query.inputs.map((input) => input.type)).toEqual([
        { type: 'bigint' },
        { type: 'int' },
        { type: 'nvarchar', length: 200 },
        { type: 'nvarchar', length: 65_535 },
        { type: 'datetimeoffset', scale: 3 },
        { type: 'datetimeoffset', scale: 3 },
      ]);
      expect(query.inputs.map((input) => input.value)).toEqual(['12', 50, 'sink', '50%', since, null]);
    });

    it('decodes an inspected row: lower-case GUID, parsed headers, instants, the payload when present', async () => {
      const finished = new Date('2026-01-02T00:00:00.000Z');
      respond = {
        recordset: [
          {
            id: '7',
            message_id: GUID,
            stream: 'sink',
            idempotency_key: null,
            ordering_key: 'k',
            attempts: 5,
            last_error: 'HTTP 503',
            headers: '{"a":"b"}',
            created_at: since,
            finished_at: finished,
            payload: '{"n":1}',
          },
        ],
      };
      expect(await runner.run(statements.inspectDeadOutbox)).toEqual({
        table: 'outbox',
        id: '7',
        messageId: GUID.toLowerCase(),
        stream: 'sink',
        key: 'k',
        attempts: 5,
        lastError: 'HTTP 503',
        headers: { a: 'b' },
        createdAt: since,
        finishedAt: finished,
        payload: '{"n":1}',
      });
      respond = { recordset: [] };
      expect(await runner.run(statements.inspectDeadInbox)).toBeUndefined();
    });

    it('decodes blocked keys and claims at risk from tedious types', async () => {
      respond = {
        recordset: [
          {
            id: '3',
            stream: 'billing',
            ordering_key: 'agg',
            reason: 'dead',
            attempts: 2,
            last_error: null,
            age_seconds: 1.5,
            waiting: 4,
          },
        ],
      };
      expect(await runner.run(statements.blockedKeys)).toEqual([
        {
          table: 'inbox',
          stream: 'billing',
          key: 'agg',
          id: '3',
          reason: 'dead',
          attempts: 2,
          lastError: null,
          ageSeconds: 1.5,
          waiting: 4,
        },
      ]);
      const expires = new Date('2026-01-01T10:00:30.000Z');
      respond = {
        recordset: [
          {
            id: '9',
            stream: 'sink',
            ordering_key: null,
            attempts: 1,
            claimed_at: since,
            lease_expires_at: expires,
            expires_in_ms: 2999.6,
          },
        ],
      };
      expect(await runner.run(statements.claimsAtRisk)).toEqual([
        {
          table: 'outbox',
          id: '9',
          stream: 'sink',
          key: null,
          attempts: 1,
          claimedAt: since,
          leaseExpiresAt: expires,
          expiresInMs: 3000,
        },
      ]);
    });
  });
});
