import { describe, expect, it } from 'vitest';
import { dataSourceOptionsFromUrl } from '../../lib/surfaces/conformance/connection-url.js';
import { formatConformanceReport, runConformance } from '../../lib/surfaces/conformance/index.js';
import { runCli } from '../../lib/surfaces/cli/run-cli.js';
import { InvalidArgumentError } from '../../lib/shared/errors/invalid-argument.error.js';

describe('the conformance check without a database', () => {
  it('reads PostgreSQL and SQL Server URLs, and refuses others without echoing the password', () => {
    expect(dataSourceOptionsFromUrl('postgres://u:p@db:5432/app', 6)).toMatchObject({
      type: 'postgres',
      url: 'postgres://u:p@db:5432/app',
      extra: { max: 6 },
    });
    expect(dataSourceOptionsFromUrl('mssql://sa:S3cr%40t@sql:1444/app?trustServerCertificate=true', 6)).toMatchObject({
      type: 'mssql',
      host: 'sql',
      port: 1444,
      username: 'sa',
      password: 'S3cr@t',
      database: 'app',
      pool: { max: 6 },
      options: { encrypt: true, trustServerCertificate: true },
    });
    expect(() => dataSourceOptionsFromUrl('mysql://u:secret@db/app', 6)).toThrow(InvalidArgumentError);
    expect(() => dataSourceOptionsFromUrl('mysql://u:secret@db/app', 6)).not.toThrow(/secret/);
    expect(() => dataSourceOptionsFromUrl('mysql://u@db/app?password=Qs3cret&ssl=1', 6)).toThrow(
      '"mysql://u@db/app?password=***&ssl=1" is not a database URL',
    );
    expect(() => dataSourceOptionsFromUrl('not a url ?password=Qs3cret', 6)).not.toThrow(/Qs3cret/);
  });

  it('refuses bad options before touching a database', async () => {
    await expect(runConformance({})).rejects.toThrow(InvalidArgumentError);
    await expect(runConformance({ url: 'postgres://x/y', connections: 1 })).rejects.toMatchObject({
      field: 'connections',
    });
    await expect(runConformance({ url: 'postgres://x/y', schema: 'no-dashes' })).rejects.toThrow(/schema/);
  });

  it('prints one line per check with its evidence or reason, then the verdict', () => {
    const text = formatConformanceReport({
      passed: false,
      database: 'postgres',
      schema: 'queuebox_conformance_x',
      checks: [
        { name: 'schema', title: 'a schema', status: 'pass', evidence: 'created', durationMs: 3 },
        {
          name: 'claim-lock',
          title: 'the claim lock serializes claimers',
          status: 'fail',
          evidence: '',
          reason: 'took 1 row',
          durationMs: 5,
        },
        { name: 'notify', title: 'wake-ups', status: 'skip', evidence: '', reason: 'no NOTIFY', durationMs: 0 },
      ],
    });
    expect(text.split('\n')).toEqual([
      'QueueBox conformance on PostgreSQL (schema queuebox_conformance_x)',
      'PASS  schema — a schema (3 ms)',
      '      observed: created',
      'FAIL  claim-lock — the claim lock serializes claimers (5 ms)',
      '      reason: took 1 row',
      'SKIP  notify — wake-ups (0 ms)',
      '      why: no NOTIFY',
      'conformance: FAILED (claim-lock)',
    ]);
  });

  it.each([
    [['conformance'], '--url'],
    [['conformance', '--url', 'mysql://u:p@h/d'], '--url'],
    [['conformance', '--url', 'postgres://h/d', '--connections', '1'], '--connections'],
    [['conformance', '--url', 'postgres://h/d', '--schema', 'bad-name'], '--schema'],
  ])('queuebox %j is a usage error naming %s (exit 2)', async (argv, flag) => {
    const err: string[] = [];
    const code = await runCli([...argv, '--json'], { stdout: () => undefined, stderr: (text) => err.push(text) });
    expect(code).toBe(2);
    expect(JSON.parse(err.join(''))).toMatchObject({ error: { code: 'CLI_USAGE', flag } });
  });
});
