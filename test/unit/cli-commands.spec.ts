import { describe, expect, it } from 'vitest';
import { EXIT_CODES, runCli } from '../../lib/surfaces/cli/run-cli.js';

const URL = 'postgres://ops:hunter2@127.0.0.1:1/app';

/** Runs the CLI in process; every case here fails before connecting. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const err: string[] = [];
  const out: string[] = [];
  const code = await runCli(
    [...argv, '--json'],
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    env,
  );
  expect(out).toEqual([]);
  expect(err.join('\n')).not.toContain('hunter2');
  return {
    code,
    error: (JSON.parse(err.join('\n')) as { error: { code: string; flag?: string; message: string } }).error,
  };
}

describe('queuebox status and dead: usage errors name the flag and exit 2 before connecting', () => {
  it.each([
    [['status'], '--url', 'QUEUEBOX_DATABASE_URL'],
    [['status', '--url', 'redis://h/0'], '--url', 'scheme "redis"'],
    [['status', '--url', URL, '--within=-1'], '--within', 'from 0 to 86400000'],
    [['status', '--url', URL, '--limit', '0'], '--limit', 'from 1 to 1000'],
    [['status', '--url', URL, '--outbox-table', 'x;y'], '--outbox-table', 'identifier'],
    [['dead', '--url', URL], '<action>', 'needs an action'],
    [['dead', 'retry', '--url', URL], 'retry', 'unexpected argument'],
    [['dead', 'list', '--url', URL, '--table', 'jobs'], '--table', 'outbox, inbox'],
    [
      ['dead', 'list', '--url', URL, '--table', 'inbox', '--destination', 'd'],
      '--destination',
      'does not apply to the inbox',
    ],
    [['dead', 'list', '--url', URL, '--source', 's'], '--source', 'does not apply to the outbox'],
    [['dead', 'list', '--url', URL, '--since', 'yesterday'], '--since', 'ISO 8601'],
    [['dead', 'list', '--url', URL, '--after', 'x'], '--after', 'row ids'],
    [['dead', 'list', '--url', URL, '--yes'], '--yes', 'does not apply to "queuebox dead list"'],
    [['dead', 'replay', '--url', URL, '--limit', '5', '--all', '--yes'], '--limit', 'does not apply'],
    [['dead', 'replay', '--url', URL, '--yes'], '--ids', 'needs a selection'],
    [['dead', 'discard', '--url', URL, '--ids', '1,2'], '--yes', 'pass --yes'],
    [['dead', 'discard', '--url', URL, '--ids', '1', '--all', '--yes'], '--ids', 'cannot be combined'],
    [['dead', 'replay', '--url', URL, '--ids', '1,two', '--yes'], '--ids', 'row ids'],
    [['dead', 'replay', '--url', URL, '--all', '--yes', '--chunk-size', '5000'], '--chunk-size', 'from 1 to 1000'],
    // Values PostgreSQL itself would refuse (a failed statement, exit 1) are usage errors here.
    [['dead', 'list', '--url', URL, '--error', 'HTTP\u0000 503'], '--error', 'holding a NUL character'],
    [['dead', 'list', '--url', URL, '--destination', 'billing\u0000'], '--destination', 'without NUL'],
    [['dead', 'list', '--url', URL, '--table', 'inbox', '--source', '\u0000'], '--source', 'without NUL'],
    [['dead', 'replay', '--url', URL, '--ids', '1,9223372036854775808', '--yes'], '--ids', 'up to 9223372036854775807'],
    [['dead', 'list', '--url', URL, '--after', '9999999999999999999'], '--after', 'holding "9999999999999999999"'],
  ])('%j → %s', async (argv, flag, text) => {
    const { code, error } = await cli(argv);
    expect(code).toBe(EXIT_CODES.usage);
    expect(error).toMatchObject({ code: 'CLI_USAGE', flag, message: expect.stringContaining(text) });
  });

  it('takes the URL from QUEUEBOX_DATABASE_URL, and masks its password too', async () => {
    const { code, error } = await cli(['status', '--limit', 'x'], { QUEUEBOX_DATABASE_URL: URL });
    expect(code).toBe(EXIT_CODES.usage);
    expect(error.flag).toBe('--limit');
  });
});
