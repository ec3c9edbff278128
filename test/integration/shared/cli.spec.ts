import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * The CLI as users run it: the package built with its own tsconfig, run by node as a child
 * process. Built under node_modules (so that the build resolves the packages, and git ignores
 * it), into a directory of this run's own.
 */
const build = join(root, 'node_modules', '.cache', `queuebox-cli-${randomBytes(4).toString('hex')}`);

/**
 * Each test starts several node processes that boot Nest: on a CI machine shared with other test
 * files that takes longer than the suite's 60 s default. A bound on a hang, not a timed assertion.
 */
const CLI_TEST_TIMEOUT_MS = 180_000;

/** The `queuebox` command's file in the build: where package.json's `bin` says it is in dist/. */
const cliEntry = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { queuebox: string } }
).bin.queuebox.replace(/^\.\/dist\//, '');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function queuebox(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(build, cliEntry), ...args],
      { cwd: root, env: { ...process.env, QUEUEBOX_DATABASE_URL: '' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The JSON a --json run printed; a failed run shows its stderr. */
function json<T>(run: Run): T {
  expect(run, run.stderr).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout) as T;
}

describeWithDatabase('queuebox CLI against a database with rows', () => {
  const url = inject('testDatabase').url!;
  let schema: string;
  let db: DataSource;
  let ddlSchema: string | undefined;
  const at = () => ['--url', url, '--schema', schema];

  beforeAll(async () => {
    await new Promise<void>((resolve, reject) =>
      execFile(
        join(root, 'node_modules', '.bin', 'tsc'),
        [
          '-p',
          'tsconfig.build.json',
          '--outDir',
          build,
          '--declaration',
          'false',
          '--declarationMap',
          'false',
          '--sourceMap',
          'false',
        ],
        { cwd: root },
        (error, stdout) => (error ? reject(new Error(`build failed: ${stdout}`)) : resolve()),
      ),
    );
    schema = await createTestSchema();
    db = await openDataSource(schema, 2);
  });
  afterAll(async () => {
    if (ddlSchema) await testDatabase().dropSchema(ddlSchema);
    await db?.destroy();
    await rm(build, { recursive: true, force: true });
  });

  const deadOutbox = (destination: string, key: string | null, finishedAgoMs = 60_000) =>
    testDatabase().insertOutboxRow(db, schema, { destination, key, state: 'dead', attempts: 10, finishedAgoMs });

  it(
    'prints DDL that creates working tables',
    async () => {
      ddlSchema = `qb_cli_${randomBytes(4).toString('hex')}`;
      const printed = json<{ dialect: string; migrations: { name: string; statements: string[] }[] }>(
        await queuebox(['schema', '--dialect', testDatabase().type, '--schema', ddlSchema, '--json']),
      );
      expect(printed.dialect).toBe(testDatabase().type);
      for (const statement of printed.migrations.flatMap((migration) => migration.statements))
        await db.query(statement);
      await testDatabase().seedOutbox(db, ddlSchema, { key: null, count: 2, destination: 'ddl' });
      const status = json<{ backlog: { outbox: { name: string; pending: number }[] } }>(
        await queuebox(['status', '--url', url, '--schema', ddlSchema, '--json']),
      );
      expect(status.backlog.outbox).toEqual([expect.objectContaining({ name: 'ddl', pending: 2 })]);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports backlog, dead counts, blocked keys and claims at risk',
    async () => {
      await testDatabase().seedOutbox(db, schema, { key: null, count: 3, destination: 'billing' });
      const head = await deadOutbox('billing', 'order-1');
      await testDatabase().insertOutboxRow(db, schema, { destination: 'billing', key: 'order-1' });
      await deadOutbox('mail', null);
      await testDatabase().insertOutboxRow(db, schema, { destination: 'mail', state: 'processing' });
      await testDatabase().insertInboxRow(db, schema, {
        source: 'shop',
        idempotencyKey: 'i-1',
        state: 'dead',
        attempts: 5,
        finishedAgoMs: 60_000,
      });

      const report = json<{
        database: string;
        backlog: { outbox: { name: string; pending: number; oldestAgeSeconds: number }[]; inbox: unknown[] };
        dead: { outbox: { name: string; dead: number }[]; inbox: { name: string; dead: number }[] };
        blockedKeys: { table: string; stream: string; key: string; id: string; reason: string }[];
        claimsAtRisk: { table: string; stream: string }[];
      }>(await queuebox(['status', ...at(), '--within', String(2 * 3_600_000), '--json']));
      expect(report.backlog.outbox).toEqual([expect.objectContaining({ name: 'billing', pending: 4 })]);
      expect(report.dead).toEqual({
        outbox: [
          { name: 'billing', dead: 1 },
          { name: 'mail', dead: 1 },
        ],
        inbox: [{ name: 'shop', dead: 1 }],
      });
      expect(report.blockedKeys).toContainEqual(
        expect.objectContaining({ table: 'outbox', stream: 'billing', key: 'order-1', id: head, reason: 'dead' }),
      );
      expect(report.claimsAtRisk).toEqual([expect.objectContaining({ table: 'outbox', stream: 'mail' })]);

      const text = await queuebox(['status', ...at()]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/outbox\s+billing\s+4\s+\d+ s\s+1/);
      expect(text.stdout).toContain('order-1');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'lists, replays and discards dead letters, by ids and by filter, only with --yes',
    async () => {
      // On the rows of the previous test (the specs of a file run in order), plus an older dead one.
      const before = (await outboxRows(db, schema)).filter((row) => row.state === 'dead').map((row) => row.id);
      const old = await deadOutbox('billing', null, 3 * 3_600_000);
      const since = new Date((await testDatabase().databaseNow(db)).getTime() - 3_600_000).toISOString();

      const all = json<{ table: string; items: { id: string }[] }>(await queuebox(['dead', 'list', ...at(), '--json']));
      expect(all.items.map((item) => item.id)).toEqual([...before, old]);
      const page = json<{ items: { id: string; destination: string }[]; next?: string }>(
        await queuebox(['dead', 'list', ...at(), '--destination', 'billing', '--limit', '1', '--json']),
      );
      expect(page.items).toHaveLength(1);
      expect(page.next).toBe(page.items[0].id);
      const recentBilling = json<{ items: { id: string }[] }>(
        await queuebox(['dead', 'list', ...at(), '--destination', 'billing', '--since', since, '--json']),
      );
      expect(recentBilling.items.map((item) => item.id)).toEqual(before.slice(0, 1));
      const inbox = json<{ items: { source: string }[] }>(
        await queuebox(['dead', 'list', ...at(), '--table', 'inbox', '--json']),
      );
      expect(inbox.items).toEqual([expect.objectContaining({ source: 'shop' })]);

      const unconfirmed = await queuebox(['dead', 'replay', ...at(), '--ids', old, '--json']);
      expect(unconfirmed.code).toBe(2);
      expect(JSON.parse(unconfirmed.stderr)).toMatchObject({ error: { code: 'CLI_USAGE', flag: '--yes' } });
      expect((await outboxRows(db, schema)).find((row) => row.id === old)?.state).toBe('dead');

      const replayed = json<{ action: string; count: number }>(
        await queuebox(['dead', 'replay', ...at(), '--ids', old, '--yes', '--json']),
      );
      expect(replayed).toMatchObject({ action: 'replay', count: 1 });
      expect((await outboxRows(db, schema)).find((row) => row.id === old)).toMatchObject({
        state: 'pending',
        attempts: 0,
      });

      const discarded = json<{ action: string; count: number }>(
        await queuebox(['dead', 'discard', ...at(), '--destination', 'mail', '--yes', '--json']),
      );
      expect(discarded).toMatchObject({ action: 'discard', count: 1 });
      const dead = (await outboxRows(db, schema)).filter((row) => row.state === 'dead');
      expect(dead.map((row) => row.destination)).toEqual(['billing']);
      expect(await inboxRows(db, schema)).toHaveLength(1);

      // By filter, the last statement finds nothing: that is what says there is no more.
      const text = await queuebox(['dead', 'replay', ...at(), '--table', 'inbox', '--all', '--yes']);
      expect(text).toMatchObject({
        code: 0,
        stdout: 'Replayed 1 dead inbox row (2 statements of at most 500 rows).\n',
      });
      const none = await queuebox([
        'dead',
        'discard',
        ...at(),
        '--table',
        'inbox',
        '--all',
        '--yes',
        '--chunk-size',
        '1',
      ]);
      expect(none).toMatchObject({
        code: 0,
        stdout:
          'No dead inbox row was discarded (1 statement of at most 1 row): none matched, or they were no longer dead.\n',
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'prints control characters from the database as escapes: a last error cannot drive the terminal',
    async () => {
      // What a hostile destination could answer: set the terminal's title, clear the screen, a C1 CSI.
      const hostile = 'HTTP 500 \u001b]0;pwned\u0007\u001b[2J\u009b31m done';
      const id = await testDatabase().insertOutboxRow(db, schema, {
        destination: 'term',
        key: 'k\u001b[1A',
        state: 'dead',
        attempts: 1,
        lastError: hostile,
        finishedAgoMs: 1_000,
      });
      // eslint-disable-next-line no-control-regex -- finds control characters printed raw
      const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

      const list = await queuebox(['dead', 'list', ...at(), '--destination', 'term']);
      expect(list, list.stderr).toMatchObject({ code: 0 });
      expect(list.stdout).not.toMatch(raw);
      expect(list.stdout).toContain('HTTP 500 \\x1b]0;pwned\\x07\\x1b[2J\\x9b31m done');
      expect(list.stdout).toContain('k\\x1b[1A');
      const status = await queuebox(['status', ...at()]);
      expect(status.stdout).toContain('\\x1b]0;pwned');
      expect(status.stdout).not.toMatch(raw);
      // JSON keeps the value: its escapes parse back to it.
      const page = json<{ items: { id: string; lastError: string }[] }>(
        await queuebox(['dead', 'list', ...at(), '--destination', 'term', '--json']),
      );
      expect(page.items).toEqual([expect.objectContaining({ id, lastError: hostile })]);
      await queuebox(['dead', 'discard', ...at(), '--ids', id, '--yes']);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'shows the URL with the values of ?password= and other secret parameters masked, in text and in --json',
    async () => {
      // The password as a query parameter, where pg takes it too (trust authentication ignores it).
      const withQuery = new URL(url);
      const password = decodeURIComponent(withQuery.password) || `pw${randomBytes(6).toString('hex')}`;
      const sslPassword = `ssl${randomBytes(6).toString('hex')}`;
      withQuery.password = '';
      withQuery.searchParams.set('password', password);
      withQuery.searchParams.set('sslpassword', sslPassword);

      const text = await queuebox(['status', '--url', withQuery.toString(), '--schema', schema]);
      expect(text, text.stderr).toMatchObject({ code: 0 });
      // The rest of the URL as given; but the CLI also scrubs a secret wherever it appears, so an
      // embedded server's password ("postgres") masks the scheme and user name too.
      expect(text.stdout.split('\n')[0]).toMatch(/^QueueBox on \S+:\/\/\S+\?password=\*\*\*&sslpassword=\*\*\* \(/);
      const report = json<{ database: string }>(
        await queuebox(['status', '--url', withQuery.toString(), '--schema', schema, '--json']),
      );
      expect(report.database).toMatch(/\?password=\*\*\*&sslpassword=\*\*\*$/);
      for (const secret of [`password=${password}`, sslPassword])
        expect(text.stdout + JSON.stringify(report)).not.toContain(secret);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 1 on an operational failure and 2 on a usage error, never printing the password',
    async () => {
      const secret = `pw${randomBytes(6).toString('hex')}`;
      const withPassword = new URL(url);
      withPassword.password = secret;
      withPassword.port = '1';
      const unreachable = await queuebox(['status', '--url', withPassword.toString(), '--json']);
      expect(unreachable.code).toBe(1);
      expect(JSON.parse(unreachable.stderr)).toMatchObject({
        error: { code: expect.any(String), message: expect.any(String) },
      });
      expect(unreachable.stdout + unreachable.stderr).not.toContain(secret);

      const missingTables = await queuebox([
        'status',
        '--url',
        url,
        '--schema',
        schema,
        '--outbox-table',
        'no_such_table',
      ]);
      expect(missingTables.code).toBe(1);
      expect(missingTables.stderr).toMatch(/^queuebox: /);
      // The operator is told what to do: migrate, or point at the right schema.
      expect(missingTables.stderr).toMatch(
        /\nhint: QueueBox's tables are not in this database: run its migrations .* or pass --schema/,
      );
      const missingJson = await queuebox(['dead', 'list', '--url', url, '--schema', `${schema}_none`, '--json']);
      expect(missingJson.code).toBe(1);
      // QueueBox's start-up check found them missing: its code, and what it found.
      expect(JSON.parse(missingJson.stderr)).toMatchObject({
        error: {
          code: 'MISSING_MIGRATIONS',
          message: expect.stringContaining(`table ${schema}_none.queuebox_outbox_messages does not exist`),
          hint: expect.stringContaining('pass --schema'),
        },
      });

      const usage = await queuebox(['dead', 'list', '--url', withPassword.toString(), '--limit', 'many']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('--limit');
      expect(usage.stderr).not.toContain(secret);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
