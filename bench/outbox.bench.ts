/**
 * QueueBox outbox benchmark: drain throughput, commit-to-publish latency and enqueue
 * throughput, each next to a hand-written baseline on the same server, table and run.
 * Prints figures and ratios; asserts nothing. `npm run bench`; sizes: see bench-config.ts.
 */
import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { readBenchConfig } from './bench-config.js';
import type { BenchContext } from './bench-context.js';
import { readPostmasterPid, startBenchPostgres } from './bench-postgres.js';
import { rawPool } from './bench-schema.js';
import { ADMIN_APPLICATION_NAME } from './bench-wal.js';
import { f0 } from './bench-stats.js';
import { drainScenario } from './drain.scenario.js';
import { enqueueScenario } from './enqueue.scenario.js';
import { latencyScenario } from './latency.scenario.js';
import { orderedDrainScenario, peersDrainScenario } from './peers.scenario.js';
import { producerScenario } from './producer.scenario.js';
import { pullScenario } from './pull.scenario.js';
import { backlogScenario } from './backlog.scenario.js';
import { printSummary, type CaseResult } from './peers/compare.js';
import { printTargets, type RunResults } from './targets.js';

async function main(): Promise<void> {
  const config = readBenchConfig();
  const started = performance.now();
  const print = (line: string): void => console.log(line);
  const server = await startBenchPostgres();
  const admin = rawPool(server.url, 2, ADMIN_APPLICATION_NAME);
  try {
    const [{ version, fsync, synchronous_commit: syncCommit }] = (
      await admin.query<{ version: string; fsync: string; synchronous_commit: string }>(
        `SELECT version() AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit`,
      )
    ).rows;
    const postmasterPid = process.env.QUEUEBOX_PG_URL ? undefined : await readPostmasterPid(admin);
    const ctx: BenchContext = {
      url: server.url,
      admin,
      postmasterPid,
      print,
      heading: (title) => print(`\n=== ${title}`),
    };
    print('QueueBox outbox benchmark');
    print(
      `  server: ${server.description}; ${version.split(',')[0]}; fsync=${fsync}, synchronous_commit=${syncCommit}`,
    );
    print(`  client: node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`);
    print(`  scenarios: ${[...config.scenarios].join(', ')} (QUEUEBOX_BENCH_SCENARIOS); reps ${config.peers.reps}`);
    print(
      `  load average at start: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} (the machine may be shared: compare ratios, not absolute figures)`,
    );
    print(
      `  postgres CPU: ${postmasterPid === undefined ? 'not measured (external server)' : `/proc of postmaster ${postmasterPid} and its children`}`,
    );

    const results: RunResults = { cases: [], producer: [], backlog: [] };
    const cases: CaseResult[] = results.cases;
    if (config.scenarios.has('peers')) cases.push(...(await peersDrainScenario(ctx, config)));
    if (config.scenarios.has('ordered')) cases.push(...(await orderedDrainScenario(ctx, config)));
    if (config.scenarios.has('producer')) results.producer.push(...(await producerScenario(ctx, config)));
    if (config.scenarios.has('pull')) cases.push(...(await pullScenario(ctx, config)));
    if (config.scenarios.has('backlog')) results.backlog.push(...(await backlogScenario(ctx, config)));
    if (config.scenarios.has('drain')) await drainScenario(ctx, config);
    if (config.scenarios.has('latency')) await latencyScenario(ctx, config);
    if (config.scenarios.has('enqueue')) await enqueueScenario(ctx, config);
    printSummary(ctx, cases);
    printTargets(ctx, results);
    print(
      `  load average at end: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    print(`\nbench finished in ${f0((performance.now() - started) / 1000)} s`);
  } finally {
    await admin.end();
    // A connection a peer library has not closed yet is cut by the server's shutdown (57P01):
    // expected here, and not worth a crash report.
    process.on('uncaughtException', (error: Error & { code?: string }) => {
      if (error.code === '57P01') return;
      console.error(error);
      process.exitCode = 1;
    });
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
