import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { postgresDialect } from '../../lib/database/dialects/postgres/postgres.dialect.js';
import { resolveDialect } from '../../lib/database/dialects/resolve-dialect.js';
import { UnsupportedDatabaseError } from '../../lib/shared/errors/unsupported-database.error.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';

const tables = resolveOptions({}).tables;
const dataSourceOf = (type: string) => ({ options: { type } }) as unknown as DataSource;

describe('resolveDialect', () => {
  it('chooses the PostgreSQL dialect for a postgres DataSource', () => {
    const dialect = resolveDialect(dataSourceOf('postgres'), tables);
    expect([dialect.type, dialect.displayName, dialect.wakesReplicas]).toEqual([
      postgresDialect.name,
      postgresDialect.displayName,
      true,
    ]);
  });

  it('refuses any other database with a typed error that says what to change', () => {
    const error = (() => {
      try {
        return resolveDialect(dataSourceOf('mysql'), tables);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnsupportedDatabaseError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_DATABASE', databaseType: 'mysql' });
    expect((error as Error).message).toContain('"dataSource"');
  });
});
