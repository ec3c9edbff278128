import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../.ci/summarize.mjs', import.meta.url));
const report = (name: string): string => fileURLToPath(new URL(`../fixtures/vitest-reports/${name}`, import.meta.url));

/** The closing line CI reads, for the given Vitest JSON reports, and the script's exit code. */
async function summarize(...files: string[]): Promise<{ line: string; code: number }> {
  const result = await run(process.execPath, [script, ...files]).then(
    (done) => ({ stdout: done.stdout, code: 0 }),
    (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
  );
  return { line: result.stdout.trim().split('\n').at(-1)!, code: result.code };
}

describe('.ci/summarize.mjs', { timeout: 30_000 }, () => {
  it('counts a suite that failed in an afterAll hook, though every test in it passed', async () => {
    expect(await summarize(report('hook-failure.json'))).toEqual({ line: '1 passed, 1 failed, 0 skipped', code: 1 });
  });

  it('adds up several reports, and counts a missing one as a failure', async () => {
    expect(await summarize(report('all-passed.json'))).toEqual({ line: '3 passed, 0 failed, 1 skipped', code: 0 });
    expect(await summarize(report('all-passed.json'), report('hook-failure.json'))).toEqual({
      line: '4 passed, 1 failed, 1 skipped',
      code: 1,
    });
    expect(await summarize(report('all-passed.json'), report('missing.json'))).toEqual({
      line: '3 passed, 1 failed, 1 skipped',
      code: 1,
    });
  });
});
