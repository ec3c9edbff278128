import { MssqlParameter } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { claimLockName } from '../../../lib/database/dialects/claim-lock-names.js';
import { MAX_RESOURCE_LENGTH } from '../../../lib/database/dialects/mssql/mssql-names.js';
import {
  mssqlStatementInventory,
  mssqlStatementMethods,
  tableConfigurations,
  type TableConfiguration,
} from './statement-inventory.js';

/*
 * What the SQL Server dialect sends, checked where no server can run (contributing/mssql-sql.md,
 * "Proof without a server"): every statement written to a .sql file snapshot (the grammar gate's
 * input, and a reviewable diff of every T-SQL change), then the properties no parser checks.
 * Snapshots are committed: CI compares, never writes them (`vitest -u` updates them locally).
 */

const configurations = Object.keys(tableConfigurations) as TableConfiguration[];

/** The text with its string literals blanked out, so that only code is searched. */
const code = (sql: string): string => sql.replace(/N?'(?:[^']|'')*'/g, "''");

/** The highest `@n` placeholder of a statement, or -1. */
const highestPlaceholder = (sql: string): number =>
  Math.max(-1, ...[...code(sql).matchAll(/@(\d+)\b/g)].map((match) => Number(match[1])));

/** The finishing and extending writes, which must carry the fence (docs/concepts/claims-and-leases.md, "The fence"). */
const fencedWrite = /^(renew|renew-many|retry|dead-letter|complete-many)-/;

describe.each(configurations)('SQL Server statements, %s tables', (configuration) => {
  const inventory = mssqlStatementInventory(configuration);

  it.each([...inventory.keys()])('%s matches its .sql snapshot', async (name) => {
    await expect(`${inventory.get(name)!.statement.sql}\n`).toMatchFileSnapshot(
      `../__snapshots__/mssql/${configuration}/${name}.sql`,
    );
  });

  it('covers every method of the dialect that produces a statement', () => {
    const covered = new Set([...inventory.values()].map((entry) => entry.method));
    expect(mssqlStatementMethods().filter((method) => !covered.has(method))).toEqual([]);
  });

  it('reads time only from SYSUTCDATETIME(), in milliseconds or minutes', () => {
    for (const [name, { statement }] of inventory) {
      const text = code(statement.sql);
      expect(text, name).not.toMatch(/\b(GETDATE|GETUTCDATE|SYSDATETIME|SYSDATETIMEOFFSET|CURRENT_TIMESTAMP)\b/i);
      for (const [, unit] of text.matchAll(/DATEADD\(\s*(\w+)/gi))
        expect(['millisecond', 'minute'], `${name}: DATEADD(${unit}`).toContain(unit);
      for (const [, unit] of text.matchAll(/DATEDIFF(?:_BIG)?\(\s*(\w+)/gi))
        expect(['millisecond', 'second', 'minute'], `${name}: DATEDIFF(${unit}`).toContain(unit);
    }
  });

  it('fences every finishing write in its WHERE and returns the changed ids through OUTPUT', () => {
    const fenced = [...inventory].filter(([name]) => fencedWrite.test(name));
    expect(fenced.length).toBe(11);
    for (const [name, { statement }] of fenced) {
      expect(statement.sql, name).toMatch(
        /\.state = 'processing' AND \w+\.claim_token = [^\n]+ AND \w+\.lease_expires_at > SYSUTCDATETIME\(\)/,
      );
      expect(statement.sql, name).toMatch(/OUTPUT inserted\.id/);
    }
  });

  it('locks claim candidates with exactly UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK and reads the rest without waiting', () => {
    for (const [name, { statement }] of inventory) {
      const hints = [...statement.sql.matchAll(/WITH \(([A-Z, ]+)\)/g)].map((match) => match[1]);
      // The inbox's insert-if-absent holds a key-range lock on (source, idempotency_key), so two
      // racing deliveries of one message serialize: the dedup, not a claim.
      const allowed =
        name === 'insert-inbox'
          ? ['UPDLOCK, HOLDLOCK']
          : ['UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK', 'READPAST, READCOMMITTEDLOCK'];
      for (const hint of hints) expect(allowed, name).toContain(hint);
      expect(statement.sql, name).not.toMatch(/NOLOCK|READUNCOMMITTED|TABLOCK|SERIALIZABLE/);
      if (name.endsWith('.claim')) expect(hints.filter((hint) => hint.startsWith('UPDLOCK')).length, name).toBe(1);
    }
  });

  it('writes states only as literals, which the filtered indexes need', () => {
    for (const [name, { statement }] of inventory)
      expect(code(statement.sql), name).not.toMatch(/state\s*(=|<>|IN\s*\()\s*@/i);
  });

  it('binds one typed parameter of constant length per placeholder, and never a list as a value', () => {
    for (const [name, { statement }] of inventory) {
      expect(statement.params.length, name).toBe(highestPlaceholder(statement.sql) + 1);
      for (const [index, param] of statement.params.entries()) {
        expect(param, `${name} @${index}`).toBeInstanceOf(MssqlParameter);
        const { value, type } = param as MssqlParameter;
        // datetimeoffset: the instants of the dead-letter filters (a fixed-size type, like the others).
        expect(type, `${name} @${index}`).toMatch(/^(bigint|int|bit|uniqueidentifier|nvarchar|datetimeoffset)$/);
        expect(
          Array.isArray(value) || (typeof value === 'object' && value !== null && !(value instanceof Date)),
          `${name} @${index} is a list`,
        ).toBe(false);
        if (type === 'nvarchar')
          expect((param as MssqlParameter).params.length, `${name} @${index} has a declared length`).toBe(1);
      }
    }
  });

  it('keeps placeholders out of string literals', () => {
    for (const [name, { statement }] of inventory) {
      for (const [literal] of statement.sql.matchAll(/N?'(?:[^']|'')*'/g)) expect(literal, name).not.toMatch(/@\d/);
    }
  });

  it('names claim locks within sp_getapplock’s 255 characters, even for the longest source', () => {
    const locks = [...inventory].filter(([name]) => name.endsWith('.lock'));
    expect(locks.length).toBe(3);
    for (const [name, { statement }] of locks)
      expect(String((statement.params[0] as MssqlParameter).value).length, name).toBeLessThanOrEqual(255);
    const pullLock = (source: string): string =>
      claimLockName(tableConfigurations[configuration], { kind: 'pull', source }, MAX_RESOURCE_LENGTH);
    const longest = pullLock('s'.repeat(200));
    expect(longest.length).toBeLessThanOrEqual(255);
    expect(pullLock(`${'s'.repeat(199)}t`)).not.toBe(longest);
  });
});
