import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../fixtures/http-receiver.js';

const testing = fileURLToPath(new URL('../../dist/surfaces/testing/index.js', import.meta.url));
const NAME = 'queuebox-exit-check';

/** Whether something accepts connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * queuebox/testing's embedded PostgreSQL, in a process that ends without stopping it (a test run
 * that crashed, a forgotten `stop()`): the server goes with the process instead of running on.
 * Runs on the built package (`npm test` builds first).
 */
describe.skipIf(!existsSync(testing))('an embedded PostgreSQL whose process exits without stopping it', () => {
  afterAll(async () => {
    for (const entry of await readdir(tmpdir()))
      if (entry.startsWith(`${NAME}-`)) await rm(join(tmpdir(), entry), { recursive: true, force: true });
  });

  it('is stopped when the process exits', { timeout: 120_000 }, async () => {
    const script = `const { startEmbeddedPostgres } = await import(${JSON.stringify(testing)});
      const server = await startEmbeddedPostgres({ name: '${NAME}' });
      console.log(server.port);
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    const port = Number(stdout.trim());
    expect(port).toBeGreaterThan(0);
    await waitFor(async () => !(await accepts(port)), 60_000, `the server on port ${port} to stop`);
  });
});
