/**
 * The soak (`npm run bench:soak`, default 60 minutes; `-- --minutes 10` for a short one): four
 * replica processes drain a backlog to measure their drain rate on this server, then produce 70 %
 * of it for the whole run with retention on, while every minute records throughput, claim and
 * end-to-end latency, the outbox table's size, dead tuples and autovacuum runs. Prints the
 * issue's pass criteria with their figures, writes the series (CSV and JSON, docs/data/) and a
 * plot (PNG, docs/images/). Asserts nothing.
 */
import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { readPostmasterPid, startBenchPostgres } from './bench-postgres.js';
import { createBenchSchema, dropBenchSchema, rawPool } from './bench-schema.js';
import { cpuNow, f0, f1, f2 } from './bench-stats.js';
import { ADMIN_APPLICATION_NAME } from './bench-wal.js';
import {
  comparisonWindow,
  readSoakConfig,
  RETENTION_INTERVAL_MS,
  SAMPLE_MS,
  steadyFromMinute,
  type SoakConfig,
} from './soak-config.js';
import { measureCarriedRate } from './soak-carried.js';
import { measureDrainRate } from './soak-drain.js';
import { SoakFleet } from './soak-fleet.js';
import { reportSoak, soakPaths, writeSoakData, type SoakResults } from './soak-results.js';
import { buildMinute, type SoakMinute } from './soak-series.js';
import { readTable, readTuples, resetTable, type TupleReading } from './soak-table-stats.js';
import { WindowSamples } from './soak-verdict.js';
import { startWaitSampler, waitProfileText } from './wait-sampler.js';

/** Dead tuples, VACUUM progress and the oldest snapshot are read this often between the minutes' full readings. */
const TUPLE_READING_MS = 5_000;

/** pg_stat_activity is sampled this often for the minute's wait profile: about a tenth of a millisecond of the server's time a second. */
const WAIT_SAMPLE_MS = 200;

/** The server settings that decide how the table ages: printed, and kept with the results. */
const SETTINGS = [
  'fsync',
  'synchronous_commit',
  'shared_buffers',
  'max_wal_size',
  'autovacuum',
  'autovacuum_naptime',
  'autovacuum_max_workers',
  'autovacuum_vacuum_threshold',
  'autovacuum_vacuum_scale_factor',
  'autovacuum_vacuum_insert_scale_factor',
  'autovacuum_vacuum_cost_delay',
  'autovacuum_vacuum_cost_limit',
];

/** Sleeps until `deadline` (performance.now() ms), or until the run is stopped. */
function sleepUntil(deadline: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, deadline - performance.now()));
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * What a minute sees between its ends: the wait profile (5 samples a second) and, every
 * `TUPLE_READING_MS`, dead tuples, VACUUM progress and the oldest snapshot.
 */
async function sampleUntil(
  url: string,
  admin: pg.Pool,
  schema: string,
  from: number,
  end: number,
  signal: AbortSignal,
): Promise<{ waits: string; tuples: TupleReading[] }> {
  const sampler = await startWaitSampler(url, WAIT_SAMPLE_MS);
  const tuples: TupleReading[] = [];
  try {
    for (let at = from + TUPLE_READING_MS; at < end - 1_000 && !signal.aborted; at += TUPLE_READING_MS) {
      await sleepUntil(at, signal);
      if (!signal.aborted) tuples.push(await readTuples(admin, schema));
    }
    await sleepUntil(end, signal);
  } catch (error) {
    await sampler.stop().catch(() => undefined);
    throw error;
  }
  const profile = await sampler.stop();
  // Every backend is a replica's (its producer and its workers share its pool): no sides to tell.
  return { waits: waitProfileText(profile, 5).replaceAll('consumer: ', ''), tuples };
}

/**
 * The rate the soak offers: a share of the drain rate of a backlog, measured first on this server
 * by these replicas, or of the rate they carry while they also produce, whichever is lower (or
 * `--rate`). Records both measurements in `results`.
 */
async function chooseOfferedRate(
  config: SoakConfig,
  admin: pg.Pool,
  fleet: SoakFleet,
  schema: string,
  results: SoakResults,
  print: (line: string) => void,
): Promise<number> {
  print(
    `\n=== Drain rate: ${f0(config.drainRows)} pending rows (after a warm-up of ${f0(Math.ceil(config.drainRows / 5))}), ${config.replicas} replicas, nothing else running`,
  );
  const drain = await measureDrainRate(admin, fleet, schema, config.drainRows, config.keys);
  results.drain = drain;
  print(
    `  warm-up ${f0(drain.warmup.rate)} msg/s; measured ${f0(drain.measured.rate)} msg/s (${f0(drain.measured.rows)} rows in ${f2(drain.measured.ms / 1000)} s)`,
  );
  if (config.rate !== undefined) {
    results.offeredFrom = `--rate ${config.rate}`;
    return config.rate;
  }
  print(
    `\n=== Carried rate: every replica's producer flat out (${config.producerInFlight} transactions of ${config.batch} in flight each) for 60 s, the publishes of the last 40 s counted`,
  );
  const carried = await measureCarriedRate(admin, fleet, schema, {
    messagesPerSecond: drain.measured.rate * 2,
    batch: config.batch,
    keys: config.keys,
    maxInFlight: config.producerInFlight,
  });
  results.carried = carried;
  print(`  published ${f0(carried.published)} msg/s, enqueued ${f0(carried.enqueued)} msg/s`);
  // The producers share the machine with the workers and the server: where they cannot offer a
  // share of the backlog's drain rate, offering it would only grow the queue.
  const share = `${f0(config.loadShare * 100)} %`;
  if (drain.measured.rate <= carried.published) {
    results.offeredFrom = `${share} of the drain rate (${f0(drain.measured.rate)} msg/s)`;
    return drain.measured.rate * config.loadShare;
  }
  results.offeredFrom = `${share} of the carried rate (${f0(carried.published)} msg/s), below the drain rate (${f0(drain.measured.rate)} msg/s): the producers share the machine`;
  return carried.published * config.loadShare;
}

async function serverFacts(admin: pg.Pool): Promise<{ version: string; settings: Record<string, string> }> {
  const version = (await admin.query<{ version: string }>('SELECT version() AS version')).rows[0].version.split(',')[0];
  const { rows } = await admin.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name`,
    [SETTINGS],
  );
  return {
    version,
    settings: Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting])),
  };
}

function minuteLine(m: SoakMinute, of: number): string {
  const mb = (bytes: number): string => f1(bytes / 1024 / 1024);
  return (
    `  minute ${m.minute}/${of}: published ${f0(m.publishedPerSecond)} msg/s (enqueued ${f0(m.enqueuedPerSecond)}, offered ${f0(m.offeredPerSecond)}), backlog ${f0(m.backlog)}; ` +
    `end-to-end p50 ${f2(m.endToEndP50Ms)} / p99 ${f2(m.endToEndP99Ms)} ms; claim p50 ${f2(m.claimP50Ms)} / p99 ${f2(m.claimP99Ms)} ms (${f0(m.claims)} claims, ${f1(m.rowsPerClaim)} rows each); ` +
    `size ${mb(m.totalBytes)} MB (table ${mb(m.tableBytes)} + indexes ${mb(m.indexBytes)}); live ${f0(m.liveTuples)}, dead ${f0(m.deadTuples)} (most ${f0(m.deadTuplesMax)}); ` +
    `deleted ${f0(m.deletedRows)}; autovacuum ${m.autovacuums} (total ${m.autovacuumCount}, running in ${f0(m.vacuumBusyShare * 100)} % of readings); oldest finished ${f0(m.oldestFinishedSeconds)} s; ` +
    `oldest snapshot ${f1(m.oldestSnapshotSeconds)} s (${m.oldestSnapshotHolder || 'none'}); ` +
    `CPU replicas ${f0(m.replicasCpuPercent)} %${m.postgresCpuPercent === null ? '' : `, postgres ${f0(m.postgresCpuPercent)} %`} of a core; load ${f2(m.loadAverage)}\n      waits: ${m.waits}`
  );
}

async function main(): Promise<number> {
  const config = readSoakConfig();
  const print = (line: string): void => console.log(line);
  const stop = new AbortController();
  let fleet: SoakFleet | undefined;
  const server = await startBenchPostgres();
  // Ctrl-C once: the run ends early and its results are still written; twice: everything goes at once.
  let interrupts = 0;
  const onSignal = (signal: string): void => {
    interrupts += 1;
    if (interrupts === 1) {
      console.error(`\n${signal}: ending the soak early; results so far are written (again to quit at once)`);
      stop.abort(`interrupted (${signal})`);
      return;
    }
    fleet?.killAll();
    void server.stop().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  const admin = rawPool(server.url, 3, ADMIN_APPLICATION_NAME);
  // An idle connection the server ends (its shutdown) must not crash the coordinator before it has written the results.
  admin.on('error', (error) => console.error(`soak: admin connection: ${error.message}`));
  const { imageDir: _imageDir, dataDir: _dataDir, ...shown } = config;
  const window = comparisonWindow(config.minutes);
  const steadyFrom = steadyFromMinute(config);
  const paths = soakPaths(config);
  let schema: string | undefined;
  const results: SoakResults = {
    label: config.label,
    startedAt: new Date().toISOString(),
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverageAtStart: loadavg(),
    },
    server: { description: server.description, ...(await serverFacts(admin)) },
    config: { ...shown, retentionIntervalMs: RETENTION_INTERVAL_MS },
    steadyFrom,
    window,
    minutes: [],
  };
  let failure: string | undefined;
  const first = new WindowSamples();
  const last = new WindowSamples();
  try {
    print('QueueBox soak');
    print(`  server: ${server.description}; ${results.server.version}`);
    print(
      `  settings: ${Object.entries(results.server.settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    );
    print(
      `  client: node ${process.version}, ${cpus().length} cores; load average at start ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} (a shared machine moves every figure)`,
    );
    print(
      `  plan: ${config.replicas} replica processes at QueueBox's defaults (pool ${config.poolSize} each), each producing its share in transactions of ${config.batch} message(s) ` +
        `over ${config.keys === 0 ? 'no ordering key' : `${f0(config.keys)} ordering keys`}; ${config.rate === undefined ? `${f0(config.loadShare * 100)} % of the rate measured first` : `${f0(config.rate)} msg/s (--rate)`} for ${config.minutes} min; ` +
        `retention.outboxSentMs ${f0(config.retentionMs)} (sweeps every ${RETENTION_INTERVAL_MS / 1000} s, the default); the table should hold steady from minute ${steadyFrom}`,
    );
    print(`  output: ${[paths.csv, paths.json, paths.png].map((path) => relative(process.cwd(), path)).join(', ')}`);

    schema = await createBenchSchema(server.url, 'soak');
    const postmasterPid = process.env.QUEUEBOX_PG_URL ? undefined : await readPostmasterPid(admin);
    const replicaFleet = new SoakFleet((reason) => stop.abort(reason));
    fleet = replicaFleet;
    await replicaFleet.start(
      Array.from({ length: config.replicas }, (_, slot) => ({
        slot,
        url: server.url,
        schema: schema!,
        poolSize: config.poolSize,
        retentionMs: config.retentionMs,
      })),
    );

    const offered = await chooseOfferedRate(config, admin, replicaFleet, schema, results, print);
    results.offeredPerSecond = offered;
    await resetTable(admin, schema);
    await replicaFleet.windows();
    let previous = await readTable(admin, schema);
    let cpuBefore = cpuNow(postmasterPid);
    print(`\n=== Soak: ${f0(offered)} msg/s offered (${results.offeredFrom}) for ${config.minutes} min`);
    replicaFleet.produce(offered, config.batch, config.keys, config.producerInFlight);
    const startedAt = performance.now();
    let minuteStartedAt = startedAt;
    for (let minute = 1; minute <= config.minutes && !stop.signal.aborted; minute++) {
      const { waits, tuples } = await sampleUntil(
        server.url,
        admin,
        schema,
        minuteStartedAt,
        startedAt + minute * SAMPLE_MS,
        stop.signal,
      );
      if (stop.signal.aborted) break;
      const [windows, table] = await Promise.all([replicaFleet.windows(), readTable(admin, schema)]);
      const now = performance.now();
      const cpu = cpuNow(postmasterPid);
      const row = buildMinute({
        minute,
        ms: now - minuteStartedAt,
        offeredPerSecond: offered,
        windows,
        table,
        previous,
        tuples,
        postgresCpuMs:
          cpu.postgresMs === undefined || cpuBefore.postgresMs === undefined
            ? null
            : cpu.postgresMs - cpuBefore.postgresMs,
        loadAverage: loadavg()[0],
        waits,
      });
      for (const target of [
        minute <= window.minutes ? first : undefined,
        minute > config.minutes - window.minutes ? last : undefined,
      ]) {
        target?.add(
          windows.reduce((sum, w) => sum + w.published, 0),
          (now - minuteStartedAt) / 1000,
          windows.flatMap((w) => w.endToEndMs),
          windows.flatMap((w) => w.claimMs),
        );
      }
      previous = table;
      cpuBefore = cpu;
      minuteStartedAt = now;
      results.minutes.push(row);
      print(minuteLine(row, config.minutes));
      await writeSoakData(results, paths);
    }
    failure = replicaFleet.failure ?? (stop.signal.aborted ? String(stop.signal.reason) : undefined);
  } catch (error) {
    failure = `the soak failed: ${error instanceof Error ? error.message : String(error)}`;
    console.error(error);
  } finally {
    print(`\n  closing the replicas (their shutdown waits for publishes in flight)`);
    await fleet?.close();
    print(`  stopping the server`);
    if (schema && process.env.QUEUEBOX_PG_URL) await dropBenchSchema(admin, schema).catch(() => undefined);
    await admin.end();
    await server.stop();
  }

  results.finishedAt = new Date().toISOString();
  results.machine.loadAverageAtEnd = loadavg();
  await reportSoak(results, { first, last, failure, paths, print });
  return failure ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
