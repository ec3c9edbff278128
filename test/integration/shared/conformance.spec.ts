import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runCli } from '../../../lib/surfaces/cli/run-cli.js';
import {
  formatConformanceReport,
  runConformance,
  type ConformanceReport,
} from '../../../lib/surfaces/conformance/index.js';
import { describeWithDatabase, testDatabase, testListenUrl } from '../../fixtures/database.js';

/**
 * The conformance check passes on the test database (PostgreSQL, and SQL Server where one is
 * configured): every check holds, with its evidence, and the run's schema is gone afterwards.
 */
describeWithDatabase('runConformance() on the test database', () => {
  let dataSource: DataSource;
  let report: ConformanceReport;

  beforeAll(async () => {
    dataSource = await new DataSource(testDatabase().dataSourceOptions(undefined, { poolSize: 8 })).initialize();
    // Through PgBouncer in transaction mode (integration-pgbouncer), the listener needs its own URL, as QueueBox does.
    report = await runConformance({ dataSource, listenUrl: testListenUrl });
    // QUEUEBOX_TEST_LOGS=1 shows the report as the CLI prints it.
    if (process.env.QUEUEBOX_TEST_LOGS) console.log(formatConformanceReport(report));
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('passes every check, each with what it observed', () => {
    expect(report.passed, formatConformanceReport(report)).toBe(true);
    const expected = [
      'pooling',
      'schema',
      'fence-stale-token',
      'fence-expired-lease',
      'database-clock',
      'one-in-flight-per-key',
      'fifo-per-key',
      'inbox-dedup',
      'claim-lock',
      'notify',
      'cleanup',
    ];
    expect(report.checks.map((check) => check.name)).toEqual(expected);
    for (const check of report.checks.filter((c) => c.status === 'pass'))
      expect(check.evidence, check.name).not.toBe('');
    // NOTIFY is PostgreSQL's: SQL Server's replicas poll.
    const notify = report.checks.find((check) => check.name === 'notify')!;
    expect(notify.status).toBe(testDatabase().type === 'postgres' ? 'pass' : 'skip');
    expect(report.checks.filter((check) => check.status === 'skip').length).toBe(
      testDatabase().type === 'postgres' ? 0 : 1,
    );
  });

  it('drops the schema it made: `queuebox conformance` makes it anew, passes, and exits 0', async () => {
    const out: string[] = [];
    const listen = testListenUrl ? ['--listen-url', testListenUrl] : [];
    const code = await runCli(
      ['conformance', '--url', inject('testDatabase').url!, '--schema', report.schema, ...listen, '--json'],
      { stdout: (text) => out.push(text), stderr: (text) => out.push(text) },
    );
    const again = JSON.parse(out.join('\n')) as ConformanceReport;
    expect(
      again.checks.find((check) => check.name === 'schema'),
      out.join('\n'),
    ).toMatchObject({ status: 'pass' });
    expect(again.passed).toBe(true);
    expect(code).toBe(0);
  });
});
