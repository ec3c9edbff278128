import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { mssqlStatementInventory } from './statement-inventory.js';

/*
 * The T-SQL grammar gate (tools/sql-grammar-gate.mjs, Debian's sqlfluff): every statement
 * snapshot of mssql-statements.spec.ts must parse, and mutations of real statements must not —
 * the gate proves it can fail. Without sqlfluff the suite is skipped locally, loudly, and fails
 * in CI, which installs it (.ci/run).
 */

const run = promisify(execFile);
const SNAPSHOTS = 'test/unit/__snapshots__/mssql';

function sqlfluffInstalled(): boolean {
  try {
    execFileSync('sqlfluff', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const installed = sqlfluffInstalled();
if (!installed && !process.env.CI)
  console.warn('SKIPPED: the T-SQL grammar gate needs sqlfluff (Debian: apt-get install -y sqlfluff); CI installs it.');

interface GateReport {
  sqlfluff: string;
  files: Array<{ file: string; ok: boolean; near?: string }>;
}

async function gate(...args: string[]): Promise<{ code: number; report: GateReport }> {
  try {
    const { stdout } = await run(process.execPath, ['tools/sql-grammar-gate.mjs', '--json', ...args], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, report: JSON.parse(stdout) as GateReport };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, report: JSON.parse(failed.stdout) as GateReport };
  }
}

/** Real statements, each broken the way a careless edit would break it. */
function brokenStatements(): Record<string, string> {
  const inventory = mssqlStatementInventory('default');
  const sql = (name: string): string => inventory.get(name)!.statement.sql;
  const renew = sql('renew-outbox');
  return {
    'misspelled-hint': sql('claim-outbox.claim').replace('ROWLOCK', 'ROWLOK'),
    'output-after-where': renew.replace('OUTPUT inserted.id\n', '').replace(/;$/, '\nOUTPUT inserted.id;'),
    'unbalanced-parenthesis': sql('claim-inbox.claim').replace(/\)([^)]*)$/, '$1'),
    'misspelled-keyword': sql('list-dead-outbox').replace('SELECT', 'SELEC'),
    'cte-without-statement': sql('claim-pull.claim').replace(/\)\s*(UPDATE|SELECT|DELETE|INSERT)[\s\S]*$/, ');'),
  };
}

describe.skipIf(!installed && !process.env.CI)('T-SQL grammar gate (sqlfluff, tsql)', () => {
  const brokenDir = mkdtempSync(join(tmpdir(), 'queuebox-broken-tsql-'));
  afterAll(() => rmSync(brokenDir, { recursive: true, force: true }));

  it(
    'parses every statement the SQL Server dialect can send, in both table configurations',
    { timeout: 900_000 },
    async () => {
      const { code, report } = await gate(SNAPSHOTS);
      expect(report.files.length).toBeGreaterThanOrEqual(100);
      expect(report.files.filter((file) => !file.ok)).toEqual([]);
      expect(code).toBe(0);
    },
  );

  it('rejects broken statements: the gate can fail', { timeout: 900_000 }, async () => {
    const broken = brokenStatements();
    for (const [name, text] of Object.entries(broken)) {
      expect(text, `${name} is a real mutation`).not.toBe('');
      writeFileSync(join(brokenDir, `${name}.sql`), `${text}\n`);
    }
    const { code, report } = await gate(brokenDir);
    expect(report.files.map((file) => [file.file.split('/').pop(), file.ok])).toEqual(
      Object.keys(broken)
        .sort()
        .map((name) => [`${name}.sql`, false]),
    );
    expect(code).toBe(1);
    expect((await gate('--expect-unparsable', brokenDir)).code).toBe(0);
  });
});
