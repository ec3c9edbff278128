import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runCli } from '../../../lib/cli/run-cli.js';
import { formatConformanceReport, runConformance, type ConformanceReport } from '../../../lib/conformance/index.js';
import { describeWithDatabase } from '../../fixtures/database.js';

/**
 * A database where the check cannot hold fails it, clearly: a role that may log in but not
 * create a schema (PostgreSQL grants PUBLIC no CREATE on a database) gets a failing report that
 * names the schema check and the database's reason, and runs nothing else.
 */
describeWithDatabase('runConformance() as a role without the rights it needs', () => {
  const role = `qb_conformance_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(8).toString('hex');
  let admin: pg.Client;
  let report: ConformanceReport;
  let restrictedUrl: string;

  beforeAll(async () => {
    const url = inject('testDatabase').url!;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    const restricted = new URL(url);
    restricted.username = role;
    restricted.password = password;
    restrictedUrl = restricted.toString();
    report = await runConformance({ url: restrictedUrl });
  });
  afterAll(async () => {
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
  });

  it('fails the schema check with the reason, and skips the rest saying why', () => {
    const text = formatConformanceReport(report);
    expect(report.passed, text).toBe(false);
    // The pooling check needs no rights beyond a connection: it runs first and passes.
    expect(report.checks[0]).toMatchObject({ name: 'pooling', status: 'pass' });
    expect(report.checks[1]).toMatchObject({ name: 'schema', status: 'fail' });
    expect(report.checks[1].reason).toMatch(/permission denied for database/);
    expect(report.checks.slice(2, -1).every((check) => check.status === 'skip' && check.reason?.includes('could not be made'))).toBe(true);
    expect(report.checks.at(-1)).toMatchObject({ name: 'cleanup', status: 'pass', evidence: expect.stringContaining('nothing to drop') });
    expect(text).toContain('FAIL  schema');
    expect(text).toContain('conformance: FAILED (schema)');
  });

  it('`queuebox conformance` prints the failing report and exits 1, never showing the password', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['conformance', '--url', restrictedUrl], { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
    expect(code).toBe(1);
    expect(out.join('\n')).toContain('FAIL  schema');
    expect(out.join('\n')).toMatch(/reason: the database refused: .*permission denied for database/);
    expect(out.join('\n') + err.join('\n')).not.toContain(password);
  });
});
