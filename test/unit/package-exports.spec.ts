import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(`${root}/dist/index.js`);

/**
 * The built package loads through `import` and through `require` (CommonJS Nest apps load
 * QueueBox with require(esm), which needs a module graph without top-level await).
 * `npm test` builds first; a bare `vitest run` without a build skips this file.
 */
describe.skipIf(!built)('built package', { timeout: 60_000 }, () => {
  const run = (code: string, type: 'module' | 'commonjs') =>
    execFileSync(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: root, encoding: 'utf8' }).trim();

  it('loads with import', () => {
    const out = run(
      `import('queuebox').then(async (q) => { const m = await import('queuebox/migrations'); const t = await import('queuebox/terminus');
        const e = await import('queuebox/event-emitter');
        console.log([typeof q.QueueBoxModule, typeof q.OutboxService, m.QueueBoxPostgresMigrations.length, typeof t.QueueBoxHealthIndicator, typeof e.QueueBoxEventEmitterModule, typeof q.QueueBoxEvents].join(',')); })`,
      'module',
    );
    expect(out).toBe('function,function,3,function,function,function');
  });

  it('loads with require', () => {
    const out = run(
      `const q = require('queuebox'); const m = require('queuebox/migrations'); const t = require('queuebox/terminus');
       const e = require('queuebox/event-emitter');
       console.log([typeof q.QueueBoxModule, typeof q.ClaimLostError, m.QueueBoxPostgresMigrations.length, typeof t.QueueBoxHealthModule, e.QUEUEBOX_EVENT_PREFIX].join(','));`,
      'commonjs',
    );
    expect(out).toBe('function,function,3,function,queuebox.');
  });

  it('exposes only the intended subpaths', () => {
    expect(() => run(`require('queuebox/dist/claims/claim.repository.js')`, 'commonjs')).toThrow();
  });
});
