/**
 * Before/after of two QueueBox builds on the PostgreSQL path, in one run on one server, at
 * QueueBox's defaults (no concurrency or batchSize given), issue 21's cases: drain with a pool of
 * 3 and of 12 connections (1 and 10 loops-equivalent), ordered drain of one key (the hand-off
 * path), and enqueue-to-publish latency with the producer in another process at 1,000 msg/s.
 * Each case reports CPU per message (node and PostgreSQL) and WAL bytes per message; a rise of
 * CPU per message above 10 % is flagged. The builds run alternately, each scenario in a fresh
 * process, and the medians of the reps are compared.
 *
 *   npm run build && tsc -p bench/tsconfig.json
 *   node bench/dist/bench/compare-builds.js --before /work/wt-at-b40e704 --after . [--reps=3] [--quick] [--rows=N]
 *
 * `--rows` sets the rows of the two unkeyed drains (default 20,000). A drain's figures carry a
 * fixed cost of 170–200 ms of node CPU per run: 8–10 µs a message at 20,000 rows, 2 at 100,000,
 * which is nearer the cost a long-running service pays per message.
 *
 * Each build is a checkout with its own `npm ci` and `npm run build` (its dist and node_modules
 * are used). Asserts nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { readPostmasterPid, startBenchPostgres } from './bench-postgres.js';
import { f0, f2, median } from './bench-stats.js';

interface Build {
  label: 'before' | 'after';
  root: string;
  driver: string;
  commit: string;
}

interface Scenario {
  name: string;
  args: (url: string, build: Build) => string[];
  /** The figure compared, whether more is better, and whether it is a cost per message (flagged above +10 %). */
  figures: Figure[];
}

interface Figure {
  key: string;
  higherIsBetter: boolean;
  unit: string;
  costPerMessage?: boolean;
}

/** Issue 21: CPU per message must not rise more than 10 %. */
const COST_RISE_FLAG = 0.1;

const COSTS: Figure[] = [
  { key: 'nodeUsPerMsg', higherIsBetter: false, unit: 'µs node CPU/msg', costPerMessage: true },
  { key: 'postgresUsPerMsg', higherIsBetter: false, unit: 'µs PostgreSQL CPU/msg', costPerMessage: true },
  { key: 'walBytesPerMsg', higherIsBetter: false, unit: 'WAL bytes/msg', costPerMessage: true },
];

function readArgs(argv: readonly string[]): {
  before: string;
  after: string;
  reps: number;
  quick: boolean;
  rows?: number;
  only?: string;
} {
  const value = (name: string): string | undefined =>
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ??
    (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
  const before = value('before');
  const after = value('after') ?? '.';
  if (!before)
    throw new Error(
      'usage: compare-builds --before <checkout> [--after <checkout>] [--reps=N] [--quick] [--rows=N] [--only=<text>]',
    );
  const quick = argv.includes('--quick');
  const reps = Number(value('reps') ?? (quick ? 1 : 3));
  if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a positive integer');
  const rowsGiven = value('rows');
  const rows = rowsGiven === undefined ? undefined : Number(rowsGiven);
  if (rows !== undefined && (!Number.isInteger(rows) || rows < 1)) throw new Error('--rows must be a positive integer');
  // --only=ordered: the cases whose name contains the text (to settle one flagged case with more reps).
  return { before: resolve(before), after: resolve(after), reps, quick, rows, only: value('only') };
}

/** Copies the compiled driver into the build's node_modules, so that its packages resolve from there. */
function prepareBuild(label: Build['label'], root: string): Build {
  const dir = join(root, 'node_modules', '.queuebox-compare');
  mkdirSync(dir, { recursive: true });
  const driver = join(dir, 'compare-driver.mjs');
  copyFileSync(fileURLToPath(new URL('./compare-driver.js', import.meta.url)), driver);
  const commit = execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' })
    .trim()
    .slice(0, 100);
  return { label, root, driver, commit };
}

function runDriver(
  build: Build,
  args: readonly string[],
  postmasterPid: number | undefined,
): Promise<Record<string, number>> {
  return new Promise((resolvePromise, reject) => {
    const env = {
      ...process.env,
      ...(postmasterPid === undefined ? {} : { QUEUEBOX_COMPARE_POSTMASTER_PID: String(postmasterPid) }),
    };
    const child = spawn(process.execPath, [build.driver, ...args], {
      cwd: build.root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line)
        reject(new Error(`${build.label} driver ${args[0]} exited ${String(code)}: ${out.slice(-500)}`));
      else resolvePromise(JSON.parse(line.slice('RESULT '.length)) as Record<string, number>);
    });
  });
}

async function main(): Promise<void> {
  const opts = readArgs(process.argv.slice(2));
  const builds = [prepareBuild('before', opts.before), prepareBuild('after', opts.after)];
  const rows = opts.rows ?? (opts.quick ? 2_000 : 20_000);
  const orderedRows = opts.quick ? 200 : 3_000;
  const seconds = opts.quick ? 3 : 10;
  const rate = 1_000;
  const throughput: Figure = { key: 'msgsPerSecond', higherIsBetter: true, unit: 'msg/s' };
  const cases: Scenario[] = [
    {
      name: `drain, ${f0(rows)} rows, no keys, defaults, pool 3 (1 loop-equivalent)`,
      args: (url, b) => ['drain', url, b.root, String(rows), '0', '3'],
      figures: [throughput, ...COSTS],
    },
    {
      name: `drain, ${f0(rows)} rows, no keys, defaults, pool 12 (10 loops-equivalent)`,
      args: (url, b) => ['drain', url, b.root, String(rows), '0', '12'],
      figures: [throughput, ...COSTS],
    },
    {
      name: `ordered drain, ${f0(orderedRows)} rows of 1 key (the hand-off path), defaults, pool 12`,
      args: (url, b) => ['drain', url, b.root, String(orderedRows), '1', '12'],
      figures: [throughput, ...COSTS],
    },
    {
      name: `producer in another process, ${f0(rate)} msg/s for ${seconds} s, 100 keys (CPU: both processes)`,
      args: (url, b) => ['latency', url, b.root, String(rate), String(seconds), '100'],
      figures: [
        { key: 'p50', higherIsBetter: false, unit: 'ms p50' },
        { key: 'p99', higherIsBetter: false, unit: 'ms p99' },
        { key: 'max', higherIsBetter: false, unit: 'ms max' },
        { key: 'producerTxPerSecond', higherIsBetter: true, unit: 'producer tx/s' },
        ...COSTS,
      ],
    },
  ];
  const scenarios = opts.only ? cases.filter((scenario) => scenario.name.includes(opts.only!)) : cases;
  if (scenarios.length === 0) throw new Error(`--only=${opts.only}: no case's name contains it`);
  const server = await startBenchPostgres();
  const admin = new pg.Pool({ connectionString: server.url, max: 1 });
  const postmasterPid = process.env.QUEUEBOX_PG_URL ? undefined : await readPostmasterPid(admin);
  await admin.end();
  const flags: string[] = [];
  try {
    console.log('QueueBox build comparison (PostgreSQL path)');
    for (const b of builds) console.log(`  ${b.label}: ${b.root} @ ${b.commit}`);
    console.log(
      `  server: ${server.description}; reps ${opts.reps}; load average at start ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    for (const scenario of scenarios) {
      console.log(`\n=== ${scenario.name}`);
      const results = new Map<string, Record<string, number>[]>(builds.map((b) => [b.label, []]));
      for (let rep = 0; rep < opts.reps; rep++) {
        // Alternate which build goes first.
        const order = rep % 2 === 0 ? builds : [...builds].reverse();
        for (const b of order) {
          const result = await runDriver(b, scenario.args(server.url, b), postmasterPid);
          results.get(b.label)!.push(result);
          console.log(
            `  rep ${rep + 1} ${b.label.padEnd(6)} ${scenario.figures.map((f) => `${f2(result[f.key])} ${f.unit}`).join(', ')}${result.total !== undefined ? `, published ${result.published}/${result.total}` : ''}; load ${loadavg()[0].toFixed(2)}`,
          );
        }
      }
      for (const figure of scenario.figures) {
        const before = median(results.get('before')!.map((r) => r[figure.key]));
        const after = median(results.get('after')!.map((r) => r[figure.key]));
        const ratio = after / before;
        const verdict =
          Math.abs(ratio - 1) <= 0.05
            ? 'same within 5 %'
            : (figure.higherIsBetter ? ratio > 1 : ratio < 1)
              ? 'after better'
              : 'after worse';
        const flagged = figure.costPerMessage === true && ratio > 1 + COST_RISE_FLAG;
        if (flagged)
          flags.push(`${scenario.name}: ${figure.unit} ${f2(before)} → ${f2(after)} (+${f0((ratio - 1) * 100)} %)`);
        console.log(
          `  median ${figure.unit}: before ${f2(before)}, after ${f2(after)}, after/before ${f2(ratio)} (${verdict})${flagged ? '  ** FLAG: cost per message rose more than 10 % **' : ''}`,
        );
      }
    }
    console.log(
      `\n=== Costs per message that rose more than ${f0(COST_RISE_FLAG * 100)} % (issue 21: CPU per message must not)`,
    );
    console.log(flags.length === 0 ? '  none' : flags.map((f) => `  FLAG ${f}`).join('\n'));
    if (postmasterPid === undefined) console.log('  (PostgreSQL CPU not measured: external server)');
    console.log(
      `\nload average at end ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
