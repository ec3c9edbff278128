import { describe, expect, it } from 'vitest';
import type { DialectLimits } from '../../lib/dialects/dialect-profile.interface.js';
import { dialectNames, dialectOfScheme, dialectOfType, dialectProfiles, strictestLimits } from '../../lib/dialects/dialect-registry.js';
import { mssqlDialect } from '../../lib/dialects/mssql/mssql.dialect.js';
import { postgresDialect } from '../../lib/dialects/postgres/postgres.dialect.js';

describe('dialect registry', () => {
  it('maps each DataSource type and URL scheme to its profile, and nothing else', () => {
    expect(dialectNames).toEqual(['postgres', 'mssql']);
    expect([dialectOfType('postgres'), dialectOfType('mssql'), dialectOfType('mysql'), dialectOfType('constructor')]).toEqual([postgresDialect, mssqlDialect, undefined, undefined]);
    expect(['postgres', 'postgresql', 'mssql', 'sqlserver', 'http', ''].map((scheme) => dialectOfScheme(scheme)?.name)).toEqual(['postgres', 'postgres', 'mssql', 'mssql', undefined, undefined]);
    const schemes = dialectProfiles.flatMap((profile) => profile.url.schemes);
    expect(new Set(schemes).size).toBe(schemes.length);
  });

  it('bounds what is validated before the database is known by the strictest registered database', () => {
    for (const bound of Object.keys(strictestLimits) as (keyof DialectLimits)[]) {
      for (const profile of dialectProfiles) expect(strictestLimits[bound], `${bound} of ${profile.name}`).toBeLessThanOrEqual(profile.limits[bound]);
      expect(dialectProfiles.map((profile) => profile.limits[bound]), bound).toContain(strictestLimits[bound]);
    }
    // PostgreSQL's names, both databases' int intervals and 100-year ages, SQL Server's key columns.
    expect(strictestLimits).toEqual({ identifierLength: 63, tableNameLength: 48, intervalMs: 2_147_483_647, ageMs: 3_153_600_000_000, keyLength: 200 });
  });
});
