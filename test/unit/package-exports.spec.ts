import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as publicApi from '../../lib/index.js';
import { QUEUEBOX_EXPORTS } from '../../lib/surfaces/module/queuebox.providers.js';

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
        const k = await import('queuebox/testing'); const c = await import('queuebox/conformance'); const e = await import('queuebox/event-emitter');
        console.log([typeof q.QueueBoxModule, typeof q.OutboxService, typeof q.QueueBoxAdmin, m.QueueBoxPostgresMigrations.length, typeof t.QueueBoxHealthIndicator, typeof k.drain, typeof k.RecordingPublisher, typeof c.runConformance, typeof e.QueueBoxEventEmitterModule, typeof q.QueueBoxEvents].join(',')); })`,
      'module',
    );
    expect(out).toBe('function,function,function,5,function,function,function,function,function,function');
  });

  it('loads with require', () => {
    const out = run(
      `const q = require('queuebox'); const m = require('queuebox/migrations'); const t = require('queuebox/terminus');
       const k = require('queuebox/testing'); const c = require('queuebox/conformance'); const e = require('queuebox/event-emitter');
       console.log([typeof q.QueueBoxModule, typeof q.ClaimLostError, m.QueueBoxPostgresMigrations.length, typeof t.QueueBoxHealthModule, typeof k.QueueBoxTestingModule, typeof k.startEmbeddedPostgres, typeof c.formatConformanceReport, e.QUEUEBOX_EVENT_PREFIX].join(','));`,
      'commonjs',
    );
    expect(out).toBe('function,function,5,function,function,function,function,queuebox.');
  });

  it('publishes no internal members in its types (emit, the lease advisor’s feed) and no bridge from queuebox/event-emitter', () => {
    expect(readFileSync(`${root}/dist/shared/events/queuebox-events.service.d.ts`, 'utf8')).not.toMatch(/\bemit</);
    expect(readFileSync(`${root}/dist/engine/leases/lease-advisor.d.ts`, 'utf8')).not.toMatch(/\b(finished|renewed)\(/);
    expect(
      run(`const e = require('queuebox/event-emitter'); console.log(Object.keys(e).sort().join(','))`, 'commonjs'),
    ).toBe('QUEUEBOX_EVENT_PREFIX,QueueBoxEventEmitterModule');
  });

  it('exposes only the intended subpaths', () => {
    expect(() => run(`require('queuebox/dist/engine/claim.repository.js')`, 'commonjs')).toThrow();
  });

  it('has a queuebox bin: a built file with a shebang that runs', () => {
    const { bin } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { bin: Record<string, string> };
    const file = `${root}/${bin.queuebox}`;
    expect(readFileSync(file, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(execFileSync(process.execPath, [file, '--help'], { cwd: root, encoding: 'utf8' })).toContain(
      'Usage: queuebox <command>',
    );
  });
});

describe('public surface', () => {
  /** The claim loops: operators see them through QueueBoxAdmin, never by injecting them. */
  const loopInternals = [
    'OutboxPoller',
    'InboxRelay',
    'PullWorkerExplorer',
    'PullWorkerPoller',
    'RetentionSweeper',
    'ClaimRepository',
  ];
  /** Parts an application never uses: the intake controller (mounted by the `intake` extra), the CLI's error, the event-emitter bridge. */
  const machinery = ['InboxIntakeController', 'CliUsageError', 'QueueBoxEventEmitterBridge'];

  it('exports the admin and dead-letter services and no loop internals from the entry point', () => {
    expect(typeof publicApi.QueueBoxAdmin).toBe('function');
    expect(typeof publicApi.DeadLetterService).toBe('function');
    for (const name of loopInternals) expect(Object.keys(publicApi), name).not.toContain(name);
  });

  it('exports no machinery an application never uses, and @PullWorker as a plain decorator function', () => {
    for (const name of machinery) expect(Object.keys(publicApi), name).not.toContain(name);
    expect(Object.keys(publicApi.PullWorker)).toEqual([]);
  });

  it('exports the public services, the admin and the dead letters among them, and no loop internals from the module', () => {
    const names = QUEUEBOX_EXPORTS.map((token) => (typeof token === 'function' ? token.name : String(token)));
    expect(names).toEqual(
      expect.arrayContaining(['OutboxService', 'InboxService', 'PullService', 'DeadLetterService', 'QueueBoxAdmin']),
    );
    for (const name of loopInternals) expect(names, name).not.toContain(name);
  });
});
