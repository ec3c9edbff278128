/**
 * The chaos suite's coordinator (`npm run chaos`, `npm run chaos:ci`; contributing/chaos.md).
 * Starts a private PostgreSQL cluster (or an HA pair of them, for the failover fault), a
 * network-cut proxy in front of it (and PgBouncer behind the proxy, with `--pooler pgbouncer`), a
 * sink, replica processes of the chaos app and an intake sender; injects faults while messages
 * flow; lets the rows drain; checks that every replica's loops still tick and that each still
 * listens; then checks from the outside and prints one verdict line.
 * Exit code: 0 PASS, 1 FAIL, 2 the harness itself failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChaosConfig, type ChaosConfig } from './chaos-config.js';
import { createChaosSchema, dropChaosSchema } from './chaos-schema.js';
import { FaultInjector, type HaControl, type MovingAddress } from './fault-injector.js';
import { Feeder } from './feeder.js';
import { freePort } from './free-port.js';
import { HaPair } from './ha-pair.js';
import { PgBouncer, pgbouncerInstalled } from './pgbouncer.js';
import { PrimaryPool, type Queryable } from './primary-pool.js';
import { ProxyClient } from './proxy-client.js';
import { PrivateCluster, postgresBinDir } from './private-cluster.js';
import { replicaApplicationName, type ReplicaConfig } from './replica/replica-config.js';
import { ReplicaFleet } from './replica-fleet.js';
import { Sink } from './sink.js';
import { countAttempts, countUnfinished } from './sql/business-tables.sql.js';
import { chaosTables } from './sql/chaos-names.js';
import { chaosChecks, firstFinishAfter, flaggedAuditRows, landedLateSummary } from './sql/checks.sql.js';
import { listeningReplicas } from './sql/faults.sql.js';
import { verdictOf, type CheckCounters, type FaultKind } from './verdict.js';

const PRODUCER_LANES_PER_REPLICA = 2;
const INTAKE_LANES_PER_SOURCE = 8;
const KEYS_PER_LANE = 8;

async function main(): Promise<number> {
  const config = readChaosConfig(process.argv.slice(2));
  const schema = `chaos_${randomBytes(4).toString('hex')}`;
  const tables = chaosTables(schema);
  const logDir = mkdtempSync(join(tmpdir(), 'queuebox-chaos-'));
  const progress = (line: string): void => void process.stderr.write(`chaos: ${line}\n`);
  if (config.pooler === 'pgbouncer' && !pgbouncerInstalled())
    throw new Error(
      'chaos: --pooler pgbouncer needs the pgbouncer program (Debian package pgbouncer, or PGBOUNCER_BIN)',
    );
  const database = config.externalDatabase ? undefined : await startPrivateDatabase(config.failover, progress);
  const cluster = database instanceof PrivateCluster ? database : undefined;
  const pair = database instanceof HaPair ? database : undefined;
  const databaseUrl = pair?.primary.url ?? cluster?.url ?? config.url;
  const target = new URL(databaseUrl);
  const databaseName = target.pathname.slice(1) || 'postgres';
  // With the pooler, PgBouncer stands between the proxy and the server, and its [databases] entry is the address a failover moves.
  // Two entries for one database: the replicas' (transaction mode) and their LISTEN's (session mode).
  const sessionDatabase = `${databaseName}_session`;
  const pooled = (host: string, port: number) => ({
    [databaseName]: { host, port, dbname: databaseName },
    [sessionDatabase]: { host, port, dbname: databaseName, poolMode: 'session' as const },
  });
  const bouncer = config.pooler
    ? await PgBouncer.start({ databases: pooled(target.hostname, Number(target.port || 5432)) })
    : undefined;
  progress(
    `${config.profile} profile, ${config.messages} messages over ${config.produceSeconds} s, ${config.replicas} replicas${config.control ? `, control ${config.control}` : ''}; ` +
      `${pair ? `HA pair on ports ${pair.primary.port} and ${pair.standby.port} (crash-restarts on, failovers on)` : cluster ? `private cluster on port ${cluster.port} (crash-restarts on)` : `database ${config.url} (no crash-restarts)`}; ` +
      `${bouncer ? `through PgBouncer (transaction mode) on port ${bouncer.port}; ` : ''}schema ${schema}; replica logs in ${logDir}`,
  );
  // The replicas reach the database only through the proxy, which cuts the network on demand.
  const proxy = bouncer
    ? new ProxyClient('127.0.0.1', bouncer.port)
    : new ProxyClient(target.hostname, Number(target.port || 5432));
  const replicaUrl = new URL(databaseUrl);
  replicaUrl.host = `127.0.0.1:${await proxy.start()}`;
  const listenUrl = bouncer
    ? Object.assign(new URL(replicaUrl), { pathname: `/${sessionDatabase}` }).toString()
    : undefined;

  // Interrupted (Ctrl-C, a test's timeout): the replicas (paused ones too), PgBouncer and the private clusters go with the coordinator.
  let fleet: ReplicaFleet | undefined;
  const interrupted = (): void => {
    fleet?.killAll();
    void Promise.allSettled([bouncer?.stop(), database?.destroy()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  await createChaosSchema(databaseUrl, schema);
  const pool = new PrimaryPool(databaseUrl);
  const address: MovingAddress = bouncer
    ? { retarget: (host, port) => bouncer.retarget(pooled(host, port)) }
    : { retarget: (host, port) => proxy.retarget(host, port, config.address === 'dns') };
  const ha: HaControl | undefined = pair && { pair, address, followPrimary: (url) => pool.follow(url) };
  const sink = new Sink(config, pool, tables);
  try {
    const sinkUrl = await sink.start();
    const secrets = { feed: newSecret(), jobs: newSecret() };
    const ports = await Promise.all(Array.from({ length: config.replicas }, freePort));
    const split = splitMessages(config);
    const lanes = config.replicas * PRODUCER_LANES_PER_REPLICA;
    const perLane = Math.max(1, Math.floor(split.direct / lanes));
    const replicaConfigs: ReplicaConfig[] = ports.map((port, slot) => ({
      slot,
      url: replicaUrl.toString(),
      schema,
      port,
      sinkUrl,
      leaseMs: config.leaseMs,
      statementTimeoutMs: config.statementTimeoutMs,
      secrets,
      lanes: Array.from({ length: PRODUCER_LANES_PER_REPLICA }, (_, i) => slot * PRODUCER_LANES_PER_REPLICA + i),
      perLane,
      keysPerLane: KEYS_PER_LANE,
      rollbackRate: config.rollbackRate,
      messagesPerSecondPerLane: perLane / config.produceSeconds,
      control: config.control,
      pooler: config.pooler,
      listenUrl,
    }));
    fleet = new ReplicaFleet(replicaConfigs, logDir, progress);
    await fleet.start();
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) / 1000);

    const feeder = new Feeder(config, {
      lanesPerSource: INTAKE_LANES_PER_SOURCE,
      // A control run has no QueueBox worker to relay or pull: the intake sender stays quiet.
      perLane: config.control ? 0 : Math.max(1, Math.floor(split.intake / (2 * INTAKE_LANES_PER_SOURCE))),
      keysPerLane: KEYS_PER_LANE,
      ports,
      secrets,
    });
    const faults = new FaultInjector(config, fleet, pool, proxy, cluster, progress, ha);
    let attempted = 0;
    let feeding = true;
    const feeds = feeder.run().finally(() => (feeding = false));
    const producing = (): boolean => feeding || attempted < lanes * perLane;
    const injecting = faults.run(() => !producing() || performance.now() - started > config.faultWindowMs);
    let unfinished = Number.NaN;
    const deadline = { at: Number.POSITIVE_INFINITY };
    let faultsOverAt = 0;
    for (let tick = 0; ; tick += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      try {
        attempted = (await pool.query<{ n: number }>(countAttempts(tables))).rows[0].n;
        unfinished = (await pool.query<{ n: number }>(countUnfinished(tables))).rows[0].n;
      } catch {
        // The server is down (a crash-restart): count again next tick.
        continue;
      }
      if (tick % 5 === 0) {
        progress(
          `t=${elapsed()}s attempted=${attempted}/${lanes * perLane} fed=${feeder.acknowledged} sink=${sink.received} unfinished=${unfinished} ` +
            `kills=${faults.kills} stops=${faults.stops} terminations=${faults.terminations} cuts=${faults.cuts} restarts=${faults.restarts.length}${ha ? ` failovers=${faults.failovers.length}` : ''} crashes=${fleet.crashes}`,
        );
      }
      if (fleet.crashes > 50) throw new Error(`replicas keep crashing (${fleet.crashes}); see ${logDir}`);
      if (producing()) continue;
      if (deadline.at === Number.POSITIVE_INFINITY) {
        await injecting;
        faultsOverAt = performance.now();
        deadline.at = faultsOverAt + config.drainTimeoutMs;
        progress(`t=${elapsed()}s production done, faults over; draining`);
      }
      if (unfinished === 0 || performance.now() > deadline.at) break;
    }
    await feeds;
    const liveness = config.control
      ? { stalledLoops: 0, notListening: 0 }
      : await checkLiveness(fleet, pool, config, faultsOverAt, progress);
    await fleet.shutdown(5_000);
    await sink.stop();
    await feeder.save(pool, tables);
    const seconds = elapsed();
    const checks = (await pool.query<CheckCounters>(chaosChecks(tables))).rows[0];
    const injected: FaultKind[] = ['kills', 'stops', 'terminations', 'cuts'];
    if (database) injected.push('restarts');
    if (pair) injected.push('failovers');
    const counters = {
      kills: faults.kills,
      stops: faults.stops,
      terminations: faults.terminations,
      terminatedBackends: faults.terminatedBackends,
      cuts: faults.cuts,
      restarts: faults.restarts.length,
      failovers: faults.failovers.length,
      crashes: fleet.crashes,
      ...liveness,
    };
    await reportRecoveries(pool, tables, faults, progress);
    const failoverRecoveries = await reportFailovers(pool, tables, faults, progress);
    const report =
      failoverRecoveries.length > 0
        ? { failoverRecoveryMs: failoverRecoveries.map((ms) => ms ?? 'never').join(',') }
        : undefined;
    const verdict = verdictOf(checks, counters, seconds, config.control, injected, report);
    progress(`network cuts: ${faults.cuts} (${faults.resets} ended by a reset, the others resumed)`);
    for (const row of (await pool.query(landedLateSummary(tables))).rows)
      progress(`landed after the lease (began in time): ${JSON.stringify(row)}`);
    reportLogVolume(logDir, seconds, progress);
    if (!verdict.pass) {
      progress(`failed: ${verdict.reasons.join(', ')}`);
      for (const row of (await pool.query(flaggedAuditRows(tables))).rows)
        progress(`flagged write: ${JSON.stringify(row)}`);
    }
    console.log(verdict.line);
    return verdict.pass ? 0 : 1;
  } finally {
    await fleet?.shutdown(5_000);
    await sink.stop().catch(() => undefined);
    await proxy.stop();
    await bouncer?.stop();
    const kept = pair?.primary ?? cluster;
    if (config.keepSchema)
      progress(
        `schema ${schema} kept${kept ? ` on the private cluster ${kept.url} (still running; its data directory is ${kept.dataDir})` : ''}`,
      );
    else
      await dropChaosSchema(pool, schema).catch((error: unknown) =>
        progress(`could not drop ${schema}: ${String(error)}`),
      );
    await pool.end();
    if (database && !config.keepSchema) await database.destroy();
  }
}

/**
 * The run's own PostgreSQL cluster (an HA pair of them, for the failover fault), or undefined
 * (then the run uses `QUEUEBOX_PG_URL`, without crash-restarts or failovers) when the server
 * programs are missing or the cluster cannot be set up (no `postgres` user to run them as root,
 * say): said on stderr, never a failed run.
 */
async function startPrivateDatabase(
  failover: boolean,
  progress: (line: string) => void,
): Promise<PrivateCluster | HaPair | undefined> {
  const binDir = postgresBinDir();
  if (!binDir) {
    if (failover) progress('no PostgreSQL server programs: no HA pair, no failover');
    return undefined;
  }
  const database = failover
    ? new HaPair(binDir, [await freePort(), await freePort()])
    : new PrivateCluster(binDir, await freePort());
  try {
    if (database instanceof HaPair) await database.init();
    else {
      await database.init();
      await database.start();
    }
    return database;
  } catch (error) {
    progress(
      `could not start a private PostgreSQL ${failover ? 'HA pair' : 'cluster'} (${String(error).split('\n')[0]}); using QUEUEBOX_PG_URL without crash-restarts`,
    );
    await database.destroy().catch(() => undefined);
    return undefined;
  }
}

/**
 * Once the faults have been over for `stallMs`: every loop of every running replica must have
 * ticked within `stallMs` (a loop held by a statement that never returns does not), and every
 * replica must hold a LISTEN connection.
 */
async function checkLiveness(
  fleet: ReplicaFleet,
  pool: Queryable,
  config: ChaosConfig,
  faultsOverAt: number,
  progress: (line: string) => void,
): Promise<{ stalledLoops: number; notListening: number }> {
  const wait = faultsOverAt + config.stallMs - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  let stalledLoops = 0;
  for (let slot = 0; slot < fleet.size; slot += 1) {
    const loops = await fleet.loops(slot, 10_000);
    if (!loops) {
      stalledLoops += 1;
      progress(`replica ${slot} did not report its loops`);
      continue;
    }
    for (const loop of loops) {
      if (
        loop.state === 'stopped' ||
        loop.state === 'stopping' ||
        loop.lastTickAgeMs === null ||
        loop.lastTickAgeMs > config.stallMs
      ) {
        stalledLoops += 1;
        progress(`replica ${slot}: loop ${loop.name} stalled (${JSON.stringify(loop)})`);
      }
    }
  }
  const names = Array.from({ length: fleet.size }, (_, slot) => replicaApplicationName(slot));
  // LISTEN comes back within a reconnect delay of a failed health check: look for a while.
  let listening = new Set<string>();
  for (let attempt = 0; attempt < 20; attempt += 1) {
    listening = new Set((await pool.query<{ name: string }>(listeningReplicas, [names])).rows.map((row) => row.name));
    if (listening.size === names.length) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const notListening = names.filter((name) => !listening.has(name));
  if (notListening.length > 0) progress(`replicas without a LISTEN connection: ${notListening.join(', ')}`);
  return { stalledLoops, notListening: notListening.length };
}

/** Per crash-restart: how long the server was down, and how long from its restart to the first fenced finish of a row (database clock). */
async function reportRecoveries(
  pool: Queryable,
  tables: ReturnType<typeof chaosTables>,
  faults: FaultInjector,
  progress: (line: string) => void,
): Promise<void> {
  const recoveries: number[] = [];
  for (const [i, restart] of faults.restarts.entries()) {
    const first = (await pool.query<{ first: Date | null }>(firstFinishAfter(tables), [restart.upAt])).rows[0].first;
    const recoveryMs = first ? first.getTime() - restart.upAt.getTime() : undefined;
    if (recoveryMs !== undefined) recoveries.push(recoveryMs);
    progress(
      `crash-restart ${i + 1}: down ${restart.downMs} ms, first finished row ${recoveryMs === undefined ? 'never' : `${recoveryMs} ms`} after the restart`,
    );
  }
  if (recoveries.length > 0) {
    const sorted = [...recoveries].sort((a, b) => a - b);
    progress(
      `recovery after a crash-restart: median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms over ${sorted.length} restarts`,
    );
  }
}

/**
 * Per failover: how long from the moment the replicas' address moved to the new primary until
 * the first fenced finish of a row there (database clock; undefined: none after it). The audit
 * rows are the new primary's: the ones before the failover came over by replication.
 */
async function reportFailovers(
  pool: Queryable,
  tables: ReturnType<typeof chaosTables>,
  faults: FaultInjector,
  progress: (line: string) => void,
): Promise<(number | undefined)[]> {
  const recoveries: (number | undefined)[] = [];
  for (const [i, failover] of faults.failovers.entries()) {
    const first = (await pool.query<{ first: Date | null }>(firstFinishAfter(tables), [failover.movedAt])).rows[0]
      .first;
    const recoveryMs = first ? first.getTime() - failover.movedAt.getTime() : undefined;
    recoveries.push(recoveryMs);
    progress(
      `failover ${i + 1} (${failover.form}): the address moved ${failover.outageMs} ms after the first step${failover.form === 'stale' ? ` (${failover.readOnlyMs} ms to a read-only server)` : ''}, ` +
        `first finished row ${recoveryMs === undefined ? 'never' : `${recoveryMs} ms`} after the move`,
    );
  }
  const known = recoveries.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  if (known.length > 0)
    progress(
      `recovery after a failover: median ${known[Math.floor(known.length / 2)]} ms, max ${known[known.length - 1]} ms over ${known.length} failovers`,
    );
  return recoveries;
}

/** Lines and bytes each replica logged per minute of the run (every process of a slot appends to one file). */
function reportLogVolume(logDir: string, seconds: number, progress: (line: string) => void): void {
  const minutes = Math.max(seconds, 1) / 60;
  for (const file of readdirSync(logDir).sort()) {
    const text = readFileSync(join(logDir, file), 'utf8');
    const lines = text.split('\n').filter(Boolean).length;
    const bytes = Buffer.byteLength(text);
    progress(
      `log volume ${file}: ${lines} lines, ${bytes} bytes; ${Math.round(lines / minutes)} lines/min, ${Math.round(bytes / minutes)} bytes/min`,
    );
  }
}

/**
 * Messages per path: `intakeShare` (40 % unless told) sent to the intake (half relayed, half
 * pulled), the rest enqueued by producers; a control run enqueues them all.
 */
function splitMessages(config: ChaosConfig): { direct: number; intake: number } {
  const direct = config.control ? config.messages : Math.round(config.messages * (1 - config.intakeShare));
  return { direct, intake: config.messages - direct };
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('chaos: the harness failed:', error);
    process.exitCode = 2;
  },
);
