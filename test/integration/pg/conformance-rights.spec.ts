import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runCli } from '../../../lib/surfaces/cli/run-cli.js';
import {
  formatConformanceReport,
  runConformance,
  type ConformanceReport,
} from '../../../lib/surfaces/conformance/index.js';
import { describeWithDatabase } from '../../fixtures/database.js';
import { createLoginRole, type LoginRole } from '../../fixtures/login-role.js';

/**
 * A database where the check cannot hold fails it, clearly: a role that may log in but not
 * create a schema (PostgreSQL grants PUBLIC no CREATE on a database) gets a failing report that
 * names the schema check and the database's reason, and runs nothing else.
 */
describeWithDatabase('runConformance() as a role without the rights it needs', () => {
  let admin: pg.Client;
  let report: ConformanceReport;
  let role: LoginRole;

  beforeAll(async () => {
    const url = inject('testDatabase').url!;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    role = await createLoginRole(admin, url, 'qb_conformance');
    report = await runConformance({ url: role.url });
  });
  afterAll(async () => {
    if (role) await admin.query(`DROP ROLE IF EXISTS ${role.name}`);
    await admin?.end();
  });

  it('fails the schema check with the reason, and skips the rest saying why', () => {
    const text = formatConformanceReport(report);
    expect(report.passed, text).toBe(false);
    // The pooling check needs no rights beyond a connection: it runs first and passes.
    expect(report.checks[0]).toMatchObject({ name: 'pooling', status: 'pass' });
    expect(report.checks[1]).toMatchObject({ name: 'schema', status: 'fail' });
    expect(report.checks[1].reason).toMatch(/permission denied for database/);
    expect(
      report.checks
        .slice(2, -1)
        .every((check) => check.status === 'skip' && check.reason?.includes('could not be made')),
    ).toBe(true);
    expect(report.checks.at(-1)).toMatchObject({
      name: 'cleanup',
      status: 'pass',
      evidence: expect.stringContaining('nothing to drop'),
    });
    expect(text).toContain('FAIL  schema');
    expect(text).toContain('conformance: FAILED (schema)');
  });

  it('`queuebox conformance` prints the failing report and exits 1, never showing the password', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['conformance', '--url', role.url], {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
    });
    expect(code).toBe(1);
    expect(out.join('\n')).toContain('FAIL  schema');
    expect(out.join('\n')).toMatch(/reason: the database refused: .*permission denied for database/);
    expect(out.join('\n') + err.join('\n')).not.toContain(role.password);
  });
});
