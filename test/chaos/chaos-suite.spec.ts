import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { pgbouncerInstalled } from '../../chaos/pgbouncer.js';
// The counters a PASS needs at 0, as the coordinator's verdict reads them (test/unit/chaos-verdict.spec.ts pins the list).
import { LIVENESS, VIOLATIONS } from '../../chaos/verdict.js';

const execute = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The counters of a verdict line (`chaos: PASS|FAIL [control=…] name=value …`). */
function parseVerdict(stdout: string, stderr: string): { verdict: string; counters: Record<string, number> } {
  const line = stdout.split('\n').find((text) => text.startsWith('chaos: '));
  // No verdict: the harness itself failed; its progress and error are on stderr.
  if (!line)
    throw new Error(`no verdict line; the coordinator's stderr ends:\n${stderr.split('\n').slice(-60).join('\n')}`);
  const [, verdict] = line.split(' ');
  const counters = Object.fromEntries(
    [...line.matchAll(/(\w+)=(\d+)/g)].map(([, name, value]) => [name, Number(value)]),
  );
  return { verdict, counters };
}

/** One run of the built coordinator: its exit code and output, whatever the code. */
async function runCoordinator(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute('node', ['chaos/dist/chaos.js', '--profile', 'ci', ...args], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Exit code of a coordinator that could not run its check (a fault it could not inject, a cluster it could not set up). */
const HARNESS_FAILED = 2;

/**
 * Runs the coordinator; resolves with its exit code and verdict. A verdict, PASS or FAIL, is
 * final. A harness failure (exit 2, no verdict: the coordinator's own machinery broke, which
 * says nothing about QueueBox) is printed whole and run once more, so that one broken set-up on a
 * loaded machine does not hide the verdict; a second one fails the test.
 */
async function chaos(
  args: string[],
): Promise<{ code: number; verdict: string; counters: Record<string, number>; stderr: string }> {
  let run = await runCoordinator(args);
  if (run.code === HARNESS_FAILED && !run.stdout.includes('chaos: ')) {
    console.error(`the chaos harness failed without a verdict; running it once more. Its stderr:\n${run.stderr}`);
    run = await runCoordinator(args);
  }
  // The verdict line in the test log, next to the test's name.
  console.log(run.stdout.trim());
  return { code: run.code, stderr: run.stderr, ...parseVerdict(run.stdout, run.stderr) };
}

/**
 * The chaos suite (contributing/chaos.md) on a private PostgreSQL HA pair it starts, crashes and
 * fails over itself (QUEUEBOX_PG_URL's server when the PostgreSQL 15 programs are missing), in a
 * schema of its own: the short run must pass, with failovers both ways, and each negative control
 * must make it fail on the counter it breaks, with the network cuts and crash-restarts on (on
 * one private cluster: a failover adds nothing to what they prove). Production is paced, the
 * drain and the liveness check wait on conditions with bounds of their own; the timeouts below
 * are a guard against a hang on a loaded 2-core machine, not a measure. It runs only with
 * QUEUEBOX_CHAOS=1 (CI sets it) and is reported skipped otherwise.
 */
describe.skipIf(!process.env.QUEUEBOX_CHAOS)('the chaos suite', () => {
  beforeAll(async () => {
    await execute('npm', ['run', 'chaos:build'], { cwd: root });
  }, 180_000);

  it(
    'passes under SIGKILL, SIGSTOP past the lease, terminated connections, network cuts, crash-restarts and failovers',
    { timeout: 600_000 },
    async () => {
      const run = await chaos([]);
      expect(run.verdict, run.stderr).toBe('PASS');
      expect(run.code).toBe(0);
      for (const name of [...VIOLATIONS, ...LIVENESS]) expect(run.counters[name], name).toBe(0);
      for (const name of ['committed', 'fed', 'delivered', 'effects', 'kills', 'stops', 'terminations', 'cuts'])
        expect(run.counters[name], name).toBeGreaterThan(0);
      // The crash-restart needs the PostgreSQL programs (a private cluster); the verdict requires it then.
      expect(run.stderr.includes('crash-restarts on') ? run.counters.restarts : 1, 'restarts').toBeGreaterThan(0);
      // Both forms of failover (the primary crashed; drained, then still reachable read-only), when the run has its HA pair.
      expect(run.stderr.includes('failovers on') ? run.counters.failovers : 2, 'failovers').toBeGreaterThanOrEqual(2);
    },
  );

  // Behind PgBouncer in transaction mode with QueueBox's defaults (it finds the pooler itself),
  // LISTEN on the pooler's session-mode database; the failovers re-point PgBouncer.
  it.skipIf(!pgbouncerInstalled())(
    'passes through PgBouncer in transaction mode, with the same faults',
    { timeout: 600_000 },
    async () => {
      const run = await chaos(['--pooler', 'pgbouncer', '--messages', '1000', '--produce-seconds', '30']);
      expect(run.verdict, run.stderr).toBe('PASS');
      expect(run.code).toBe(0);
      for (const name of [...VIOLATIONS, ...LIVENESS]) expect(run.counters[name], name).toBe(0);
      for (const name of ['committed', 'fed', 'delivered', 'effects'])
        expect(run.counters[name], name).toBeGreaterThan(0);
      expect(run.stderr).toContain('through PgBouncer (transaction mode)');
    },
  );

  it(
    'fails when a replica finishes its claims without the fence (negative control no-fence)',
    { timeout: 300_000 },
    async () => {
      const run = await chaos([
        '--control',
        'no-fence',
        '--messages',
        '1000',
        '--produce-seconds',
        '8',
        '--no-failover',
      ]);
      expect(run.verdict).toBe('FAIL');
      expect(run.code).toBe(1);
      expect(run.counters.lateFencedWrites).toBeGreaterThan(0);
    },
  );

  it(
    'fails when a replica publishes without the order per key (negative control no-order)',
    { timeout: 300_000 },
    async () => {
      const run = await chaos([
        '--control',
        'no-order',
        '--messages',
        '1000',
        '--produce-seconds',
        '8',
        '--no-failover',
      ]);
      expect(run.verdict).toBe('FAIL');
      expect(run.code).toBe(1);
      expect(run.counters.orderViolations).toBeGreaterThan(0);
    },
  );
});
