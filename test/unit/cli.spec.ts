import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../lib/shared/errors/cli-usage.error.js';
import { MissingMigrationsError } from '../../lib/shared/errors/missing-migrations.error.js';
import type { CliCommand } from '../../lib/surfaces/cli/cli-command.interface.js';
import { CLI_COMMANDS } from '../../lib/surfaces/cli/cli-commands.js';
import {
  OUTPUT_FLAGS,
  parseFlags,
  readIdsFlag,
  readInstantFlag,
  readIntFlag,
} from '../../lib/surfaces/cli/cli-flags.js';
import { maskUrl, parseConnectionUrl, secretsOf } from '../../lib/surfaces/cli/connection-url.js';
import { EXIT_CODES, runCli } from '../../lib/surfaces/cli/run-cli.js';
import { textTable } from '../../lib/surfaces/cli/text-table.js';

/** Runs the CLI in process, as `queuebox <argv>`, and keeps what it printed. */
async function cli(argv: string[], commands?: readonly CliCommand[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    env,
    commands,
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

function usageError(work: () => unknown): CliUsageError {
  try {
    work();
  } catch (error) {
    if (error instanceof CliUsageError) return error;
    throw error;
  }
  throw new Error('expected a CliUsageError');
}

describe('queuebox CLI: commands, flags and exit codes', () => {
  it('prints the usage with exit code 0 for --help, and each command its own', async () => {
    const general = await cli(['--help']);
    expect(general.code).toBe(EXIT_CODES.ok);
    for (const command of CLI_COMMANDS) expect(general.stdout).toContain(command.name);
    expect(general.stdout).toContain('0 done, 1 operational failure, 2 usage error');
    const schema = await cli(['schema', '--help']);
    expect(schema).toMatchObject({ code: 0, stdout: expect.stringContaining('--dialect') });
  });

  it.each([
    [[], '<command>', 'a command is required'],
    [['--json'], '<command>', 'a command is required'],
    [['migrate'], '<command>', 'unknown command "migrate"'],
    [['schema', '--bogus'], '--bogus', 'unknown flag --bogus'],
    [['schema', '--shcema', 'app'], '--shcema', 'unknown flag --shcema for "queuebox schema" (did you mean --schema?)'],
    [
      ['status', '--outbox-tabel', 'x'],
      '--outbox-tabel',
      'unknown flag --outbox-tabel for "queuebox status" (did you mean --outbox-table?)',
    ],
    [['dead', 'list', '--URL', 'x'], '--URL', 'unknown flag --URL for "queuebox dead" (did you mean --url?)'],
    [['shema'], '<command>', 'unknown command "shema" (did you mean "schema"?)'],
    [['schema', '--dialect'], '--dialect', 'flag --dialect needs a value'],
    [['schema', '--dialect', '-1'], '--dialect', 'is written --dialect=<value>'],
    [['schema', '--json=yes'], '--json', 'flag --json takes no value'],
    [['schema', '--dialect', 'oracle'], '--dialect', 'one of postgres, mssql'],
    [['schema', '--schema', 'bad-name'], '--schema', 'flag --schema is "bad-name"'],
    [['schema', '--outbox-table', 'a', '--inbox-table', 'a'], '--inbox-table', 'different from tables.outbox'],
    [['schema', 'extra'], 'extra', 'unexpected argument "extra"'],
  ])('exits 2 for %j, naming %s', async (argv, flag, text) => {
    const run = await cli(argv);
    expect(run.code).toBe(EXIT_CODES.usage);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(text);
    const json = await cli([...argv, '--json']);
    expect(json.code).toBe(EXIT_CODES.usage);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'CLI_USAGE', flag, message: expect.stringContaining(text) },
    });
  });

  it('suggests a flag or a command only when one is close to what was typed', async () => {
    expect((await cli(['schema', '--bogus'])).stderr).not.toContain('did you mean');
    expect((await cli(['migrate'])).stderr).not.toContain('did you mean');
  });

  it('exits 1 for an operational failure, with the error on stderr and every password masked', async () => {
    const failing: CliCommand = {
      name: 'fail',
      summary: 'fails',
      usage: 'fail',
      run: async () => {
        throw Object.assign(
          new Error('could not connect to postgres://app:s3cr%40t@db/app (password s3cr@t refused)'),
          { code: 'ECONNREFUSED' },
        );
      },
    };
    const run = await cli(['fail', '--url', 'postgres://app:s3cr%40t@db/app'], [failing]);
    expect(run.code).toBe(EXIT_CODES.failure);
    expect(run.stderr).toContain('ECONNREFUSED');
    expect(run.stderr).not.toContain('s3cr');
    const fromEnv = await cli(['fail', '--json'], [failing], {
      QUEUEBOX_DATABASE_URL: 'postgres://app:s3cr%40t@db/app',
    });
    expect(JSON.parse(fromEnv.stderr)).toEqual({
      error: { code: 'FAILED', message: expect.stringContaining('postgres://app:***@db/app') },
    });
    expect(fromEnv.stderr).not.toContain('s3cr');
  });

  it('prints control characters of its results as escapes, in text and in --json, never raw', async () => {
    // A last error as a hostile destination could answer it: the terminal's title, a cleared
    // screen, a C1 CSI, DEL and a right-to-left override.
    const hostile = 'HTTP 500 \u001b]0;pwned\u0007\u001b[2J\u009b31m\u007f\u202egnp.exe';
    const printing: CliCommand = {
      name: 'print',
      summary: 'prints a hostile text',
      usage: 'print',
      run: async () => ({ data: { lastError: hostile }, text: `line one\n${hostile}` }),
    };
    const failing: CliCommand = {
      ...printing,
      name: 'fail',
      run: async () => Promise.reject(new Error(`relation "\u001b[2J" failed`)),
    };
    // eslint-disable-next-line no-control-regex -- finds control characters printed raw
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

    const text = await cli(['print'], [printing]);
    expect(text.stdout).toBe('line one\nHTTP 500 \\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\u202egnp.exe');
    const json = await cli(['print', '--json'], [printing]);
    expect(json.stdout).not.toMatch(raw);
    expect(JSON.parse(json.stdout)).toEqual({ lastError: hostile });
    for (const run of [await cli(['fail'], [failing]), await cli(['fail', '--json'], [failing])]) {
      expect(run.code).toBe(EXIT_CODES.failure);
      expect(run.stderr).not.toMatch(raw);
    }
    expect(JSON.parse((await cli(['fail', '--json'], [failing])).stderr).error.message).toContain('"\u001b[2J"');
  });

  it('hints at the migrations and --schema when a table is missing, on both databases, and only then', async () => {
    const failingWith = (error: Error): CliCommand => ({
      name: 'fail',
      summary: 'fails',
      usage: 'fail',
      run: async () => Promise.reject(error),
    });
    const postgres = Object.assign(new Error('relation "queuebox_outbox_messages" does not exist'), {
      name: 'QueryFailedError',
      code: '42P01',
    });
    const mssql = Object.assign(new Error("Invalid object name 'queuebox_outbox_messages'."), {
      name: 'QueryFailedError',
      driverError: { number: 208 },
    });
    for (const [error, type, constant] of [
      [postgres, 'postgres', 'QueueBoxPostgresMigrations'],
      [mssql, 'mssql', 'QueueBoxSqlServerMigrations'],
    ] as const) {
      const text = await cli(['fail'], [failingWith(error)]);
      expect(text.code).toBe(EXIT_CODES.failure);
      const hint = text.stderr.split('\n')[1];
      expect(hint).toMatch(
        /^hint: QueueBox's tables are not in this database: run its migrations .*, or pass --schema/,
      );
      // Both names an application may have used: the constant of the Quick start, the factory for other names.
      expect(hint).toContain(
        `add ${constant} from "queuebox/migrations" (or createQueueBoxMigrations({ type: '${type}', schema, tables }) for other table names)`,
      );
      expect(hint).toContain(`"queuebox schema --dialect ${type}"`);
      const json = await cli(['fail', '--json'], [failingWith(error)]);
      expect(JSON.parse(json.stderr).error.hint).toMatch(/^QueueBox's tables are not in this database/);
    }
    // QueueBox's start-up check (the CLI boots QueueBoxModule): what it found, and the same hint.
    const notReady = new MissingMigrationsError(
      'mssql',
      ['QueueBoxInbox1764547200000'],
      ['table queuebox_inbox_messages does not exist'],
      'an application-facing message',
    );
    const checked = await cli(['fail'], [failingWith(notReady)]);
    expect(checked.stderr.split('\n')).toEqual([
      "queuebox: QueueBox's tables are not ready: table queuebox_inbox_messages does not exist (the migration QueueBoxInbox1764547200000 has not run).",
      expect.stringMatching(/^hint: .*add QueueBoxSqlServerMigrations from "queuebox\/migrations".*or pass --schema/),
    ]);
    expect(JSON.parse((await cli(['fail', '--json'], [failingWith(notReady)])).stderr).error).toMatchObject({
      code: 'MISSING_MIGRATIONS',
      hint: expect.stringContaining('QueueBoxSqlServerMigrations'),
    });
    const other = await cli(['fail'], [failingWith(Object.assign(new Error('permission denied'), { code: '42501' }))]);
    expect(other.stderr).not.toContain('hint');
  });

  it('keeps the columns of a table aligned when a cell holds escapes', () => {
    expect(
      textTable(
        ['ID', 'LAST ERROR', 'N'],
        [
          ['1', 'a\u001bb\r\nc', 2],
          ['22', 'x', 3],
        ],
      ).split('\n'),
    ).toEqual(['ID  LAST ERROR  N', '1   a\\x1bb c    2', '22  x           3']);
  });

  it('prints the DDL of both dialects, with the schema and table names asked for', async () => {
    const postgres = await cli(['schema', '--schema', 'ops', '--outbox-table', 'out_msgs', '--inbox-table', 'in_msgs']);
    expect(postgres.code).toBe(0);
    expect(postgres.stdout).toMatch(/^-- QueueBox tables on PostgreSQL/);
    expect(postgres.stdout).toContain('BEGIN;');
    expect(postgres.stdout).toContain('CREATE SCHEMA IF NOT EXISTS "ops";');
    expect(postgres.stdout).toContain('CREATE TABLE "ops"."out_msgs" (');
    expect(postgres.stdout).toContain('CREATE TABLE "ops"."in_msgs" (');
    expect(postgres.stdout.trimEnd()).toMatch(/COMMIT;$/);
    const mssql = await cli(['schema', '--dialect', 'mssql']);
    expect(mssql.stdout).toContain('CREATE TABLE [queuebox_outbox_messages] (');
    expect(mssql.stdout).toMatch(/\nGO\n/);
    expect(mssql.stdout).not.toContain('BEGIN;');
  });

  it('gives the migrations as JSON with --json', async () => {
    const run = await cli(['schema', '--json']);
    const data = JSON.parse(run.stdout) as {
      dialect: string;
      tables: unknown;
      migrations: { name: string; version: number; statements: string[] }[];
    };
    expect(data.dialect).toBe('postgres');
    expect(data.tables).toEqual({ outbox: 'queuebox_outbox_messages', inbox: 'queuebox_inbox_messages' });
    expect(data.migrations.map((migration) => migration.name)).toEqual([
      'QueueBoxOutbox1764460800000',
      'QueueBoxInbox1764547200000',
      'QueueBoxSchemaV21764979200000',
      'QueueBoxSchemaV31796515200000',
      'QueueBoxSchemaV41796558400000',
    ]);
    expect(data.migrations[0].statements[0]).toMatch(/^CREATE TABLE "queuebox_outbox_messages"/);
  });
});

describe('queuebox CLI: connection URLs', () => {
  it('picks the dialect from the scheme', () => {
    expect(parseConnectionUrl('postgres://u:p@h:5432/d?sslmode=require')).toMatchObject({
      dialect: 'postgres',
      masked: 'postgres://u:***@h:5432/d?sslmode=require',
      options: { type: 'postgres' },
    });
    expect(parseConnectionUrl('postgresql://h/d').dialect).toBe('postgres');
    expect(parseConnectionUrl('mssql://sa:p%40ss@sql:1444/app?trustServerCertificate=true')).toMatchObject({
      dialect: 'mssql',
      masked: 'mssql://sa:***@sql:1444/app?trustServerCertificate=true',
      options: {
        type: 'mssql',
        host: 'sql',
        port: 1444,
        username: 'sa',
        password: 'p@ss',
        database: 'app',
        options: { encrypt: true, trustServerCertificate: true },
      },
    });
  });

  it.each([
    [undefined, 'is required'],
    ['not a url', 'is not a URL'],
    ['mysql://u:secret@h/d', 'the scheme "mysql"'],
    ['mssql://u:secret@h', 'names no database'],
  ])('refuses %s naming --url, never echoing it', (url, text) => {
    const error = usageError(() => parseConnectionUrl(url));
    expect(error.flag).toBe('--url');
    expect(error.message).toContain(text);
    expect(error.message).not.toContain('secret');
  });

  it('masks passwords, and finds them in arguments for scrubbing', () => {
    expect(maskUrl('postgres://u:pw@h/d')).toBe('postgres://u:***@h/d');
    expect(maskUrl('postgres://h/d')).toBe('postgres://h/d');
    expect(maskUrl('garbage')).toBe('***');
    expect(secretsOf(['--url=postgres://u:p%2Fw@h/d', 'mssql://sa:x@h/d', undefined])).toEqual(['p%2Fw', 'p/w', 'x']);
  });

  it('masks the values of secret query parameters, keeping the others as written', () => {
    const url =
      'postgres://u@h:5432/d?sslmode=verify-full&password=Pw%21d&sslpassword=kp&sslkey=%2Fkeys%2Fc.key&application_name=a%20b&PGPASSFILE=f&apiToken=t';
    const masked =
      'postgres://u@h:5432/d?sslmode=verify-full&password=***&sslpassword=***&sslkey=***&application_name=a%20b&PGPASSFILE=***&apiToken=***';
    expect(maskUrl(url)).toBe(masked);
    expect(parseConnectionUrl(url).masked).toBe(masked);
    expect(maskUrl('postgres://u:pw@h/d?password')).toBe('postgres://u:***@h/d?password');
    expect(secretsOf([`--url=${url}`])).toEqual(['%2Fkeys%2Fc.key', '/keys/c.key', 'Pw%21d', 'Pw!d', 'kp', 'f', 't']);
    expect(secretsOf(['--url', 'postgres://h/d?password=a=b'])).toEqual(['a=b']);
  });

  it('prints no secret query value of the URL, in output or in an error', async () => {
    const url = 'postgres://app@db/app?password=S3cretPw&sslpassword=K3yPass';
    const echoing: CliCommand = {
      name: 'echo',
      summary: 'prints the URL',
      usage: 'echo',
      run: async (args) => ({ data: { database: maskUrl(args[1]) }, text: `on ${maskUrl(args[1])}` }),
    };
    const failing: CliCommand = {
      ...echoing,
      name: 'fail',
      run: async (args) => Promise.reject(new Error(`could not connect to ${args[1]}`)),
    };
    for (const run of [
      await cli(['echo', '--url', url], [echoing]),
      await cli(['echo', '--url', url, '--json'], [echoing]),
      await cli(['fail', '--url', url], [failing]),
    ]) {
      expect(run.stdout + run.stderr).toContain('postgres://app@db/app?password=***&sslpassword=***');
      expect(run.stdout + run.stderr).not.toMatch(/S3cretPw|K3yPass/);
    }
    const fromEnv = await cli(['fail', '--url', url], [failing], {
      QUEUEBOX_DATABASE_URL: 'postgres://db/app?sslpassword=EnvSecret',
    });
    expect(fromEnv.stderr).not.toContain('S3cretPw');
    const envEcho: CliCommand = {
      ...failing,
      run: async () => Promise.reject(new Error('refused: postgres://db/app?sslpassword=EnvSecret')),
    };
    expect(
      (await cli(['fail'], [envEcho], { QUEUEBOX_DATABASE_URL: 'postgres://db/app?sslpassword=EnvSecret' })).stderr,
    ).not.toContain('EnvSecret');
  });
});

describe('queuebox CLI: flag readers', () => {
  it('parses flags with node:util, refusing unknown ones and extra positionals', () => {
    expect(parseFlags('x', ['a', '--json'], OUTPUT_FLAGS, 1)).toEqual({ values: { json: true }, positionals: ['a'] });
    expect(usageError(() => parseFlags('x', ['a', 'b'], OUTPUT_FLAGS, 1)).flag).toBe('b');
    expect(usageError(() => parseFlags('x', ['-q'], OUTPUT_FLAGS)).flag).toBe('-q');
  });

  it('reads numbers, ids and instants, naming the flag when they are bad', () => {
    expect(readIntFlag('25', '--limit', 100, 1, 1000)).toBe(25);
    expect(readIntFlag(undefined, '--limit', 100, 1, 1000)).toBe(100);
    for (const bad of ['0', '1001', '1.5', '-3', 'ten', ''])
      expect(usageError(() => readIntFlag(bad, '--limit', 100, 1, 1000)).flag).toBe('--limit');
    expect(readIdsFlag('1, 2,30', '--ids', 10)).toEqual(['1', '2', '30']);
    for (const bad of ['', '1,x', '0', '1;drop', '1,2,3'])
      expect(usageError(() => readIdsFlag(bad, '--ids', 2)).flag).toBe('--ids');
    expect(readInstantFlag('2026-01-31T12:00:00Z', '--since')).toEqual(new Date('2026-01-31T12:00:00Z'));
    expect(readInstantFlag('2026-01-31T12:00:00.5+02:00', '--since')).toEqual(new Date('2026-01-31T10:00:00.500Z'));
    for (const bad of ['2026-01-31', '2026-01-31T12:00:00', 'yesterday', '2026-13-40T00:00:00Z'])
      expect(usageError(() => readInstantFlag(bad, '--since')).flag).toBe('--since');
  });

  it('refuses an --ids list with an empty entry (1,,2), naming the flag', () => {
    // An empty entry is an id lost on the way (an unset shell variable), not a separator.
    expect(readIdsFlag(' 1 2 ', '--ids', 10)).toEqual(['1', '2']);
    for (const bad of ['1,,2', ',1', '1,', '1, ,2', ','])
      expect(usageError(() => readIdsFlag(bad, '--ids', 10)).flag, bad).toBe('--ids');
  });

  it('refuses an instant that names no real time (2026-02-31, 24:00), naming the flag', () => {
    // Dates that do not exist, which Date rolls over (2026-02-31 would be 3 March).
    for (const bad of [
      '2026-02-31T00:00:00Z',
      '2026-02-29T00:00Z',
      '2026-06-31T00:00Z',
      '2026-02-28T24:00Z',
      '2026-02-28T23:59:60Z',
      '2026-02-28T12:00+24:00',
    ]) {
      expect(usageError(() => readInstantFlag(bad, '--since')).flag, bad).toBe('--since');
    }
    expect(readInstantFlag('2028-02-29T23:59:59.999-12:00', '--since')).toEqual(new Date('2028-03-01T11:59:59.999Z'));
  });
});
