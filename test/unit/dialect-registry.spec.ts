import { describe, expect, it } from 'vitest';
import { parseConnectionUrl } from '../../lib/surfaces/cli/connection-url.js';
import { notifyCheck } from '../../lib/surfaces/conformance/checks/notify.check.js';
import type { ConformanceContext } from '../../lib/surfaces/conformance/conformance-context.js';
import { formatConformanceReport } from '../../lib/surfaces/conformance/conformance-report.js';
import { dataSourceOptionsFromUrl } from '../../lib/surfaces/conformance/connection-url.js';
import type { DialectLimits, DialectProfile } from '../../lib/database/dialects/dialect-profile.interface.js';
import {
  type DialectName,
  dialectNames,
  dialectOfScheme,
  dialectOfType,
  dialectProfiles,
  strictestLimits,
} from '../../lib/database/dialects/dialect-registry.js';
import { mssqlDialect } from '../../lib/database/dialects/mssql/mssql.dialect.js';
import { postgresDialect } from '../../lib/database/dialects/postgres/postgres.dialect.js';
import { StatementCatalog } from '../../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';

const tables = resolveOptions({}).tables;

describe('dialect registry', () => {
  it('maps each DataSource type and URL scheme to its profile, and nothing else', () => {
    expect(dialectNames).toEqual(['postgres', 'mssql']);
    expect([
      dialectOfType('postgres'),
      dialectOfType('mssql'),
      dialectOfType('mysql'),
      dialectOfType('constructor'),
    ]).toEqual([postgresDialect, mssqlDialect, undefined, undefined]);
    expect(
      ['postgres', 'postgresql', 'mssql', 'sqlserver', 'http', ''].map((scheme) => dialectOfScheme(scheme)?.name),
    ).toEqual(['postgres', 'postgres', 'mssql', 'mssql', undefined, undefined]);
    const schemes = dialectProfiles.flatMap((profile) => profile.url.schemes);
    expect(new Set(schemes).size).toBe(schemes.length);
  });

  it('bounds what is validated before the database is known by the strictest registered database', () => {
    for (const bound of Object.keys(strictestLimits) as (keyof DialectLimits)[]) {
      for (const profile of dialectProfiles)
        expect(strictestLimits[bound], `${bound} of ${profile.name}`).toBeLessThanOrEqual(profile.limits[bound]);
      expect(
        dialectProfiles.map((profile) => profile.limits[bound]),
        bound,
      ).toContain(strictestLimits[bound]);
    }
    // PostgreSQL's names, both databases' int intervals and 100-year ages, SQL Server's key columns.
    expect(strictestLimits).toEqual({
      identifierLength: 63,
      tableNameLength: 48,
      intervalMs: 2_147_483_647,
      ageMs: 3_153_600_000_000,
      keyLength: 200,
    });
  });

  it('reads every registered URL scheme the same way in the CLI and in the conformance check', () => {
    for (const profile of dialectProfiles) {
      for (const scheme of profile.url.schemes) {
        const url = `${scheme}://user:pw@host:1500/app`;
        expect(parseConnectionUrl(url), url).toMatchObject({ dialect: profile.name, options: { type: profile.name } });
        expect(dataSourceOptionsFromUrl(url, 3), url).toMatchObject({ type: profile.name });
      }
    }
  });

  it('names the database and its wake-ups in the conformance report from the profile', () => {
    expect(formatConformanceReport({ passed: true, database: 'mssql', schema: 's', checks: [] })).toMatch(
      /^QueueBox conformance on SQL Server \(schema s\)/,
    );
    const skip = (profile: DialectProfile<DialectName>) =>
      notifyCheck.skipReason?.({ dialect: new StatementCatalog(profile, tables) } as unknown as ConformanceContext);
    expect(skip(postgresDialect)).toBeUndefined();
    expect(skip(mssqlDialect)).toBe(
      'SQL Server has no LISTEN/NOTIFY: replicas find new rows by polling, which the claim checks cover',
    );
    expect(skip({ ...postgresDialect, wakeUp: undefined })).toMatch(/^PostgreSQL has no LISTEN\/NOTIFY/);
  });
});
