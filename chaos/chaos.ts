/**
 * The chaos suite's coordinator (`npm run chaos`, `npm run chaos:ci`; docs/guides/chaos.md).
 * Starts a sink, replica processes of the chaos app and an intake sender; injects faults while
 * messages flow; lets the rows drain; then checks from the outside and prints one verdict line.
 * Exit code: 0 PASS, 1 FAIL, 2 the harness itself failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { readChaosConfig, type ChaosConfig } from './chaos-config.js';
import { createChaosSchema, dropChaosSchema } from './chaos-schema.js';
import { FaultInjector } from './fault-injector.js';
import { Feeder } from './feeder.js';
import type { ReplicaConfig } from './replica/replica-config.js';
import { ReplicaFleet } from './replica-fleet.js';
import { Sink } from './sink.js';
import { countAttempts, countUnfinished } from './sql/business-tables.sql.js';
import { chaosTables } from './sql/chaos-names.js';
import { chaosChecks, flaggedAuditRows } from './sql/checks.sql.js';
import { verdictOf, type CheckCounters } from './verdict.js';

const PRODUCER_LANES_PER_REPLICA = 2;
const INTAKE_LANES_PER_SOURCE = 8;
const KEYS_PER_LANE = 8;

async function main(): Promise<number> {
  const config = readChaosConfig(process.argv.slice(2));
  const schema = `chaos_${randomBytes(4).toString('hex')}`;
  const tables = chaosTables(schema);
  const logDir = mkdtempSync(join(tmpdir(), 'queuebox-chaos-'));
  const progress = (line: string): void => void process.stderr.write(`chaos: ${line}\n`);
  progress(`${config.profile} profile, ${config.messages} messages, ${config.replicas} replicas${config.control ? `, control ${config.control}` : ''}; schema ${schema}; replica logs in ${logDir}`);

  await createChaosSchema(config.url, schema);
  const pool = new pg.Pool({ connectionString: config.url, max: 4, application_name: 'chaos-coordinator' });
  pool.on('error', () => undefined);
  const sink = new Sink(config, pool, tables);
  let fleet: ReplicaFleet | undefined;
  try {
    const sinkUrl = await sink.start();
    const secrets = { feed: newSecret(), jobs: newSecret() };
    const ports = await Promise.all(Array.from({ length: config.replicas }, freePort));
    const split = splitMessages(config);
    const lanes = config.replicas * PRODUCER_LANES_PER_REPLICA;
    const perLane = Math.max(1, Math.floor(split.direct / lanes));
    const replicaConfigs: ReplicaConfig[] = ports.map((port, slot) => ({
      slot,
      url: config.url,
      schema,
      port,
      sinkUrl,
      leaseMs: config.leaseMs,
      secrets,
      lanes: Array.from({ length: PRODUCER_LANES_PER_REPLICA }, (_, i) => slot * PRODUCER_LANES_PER_REPLICA + i),
      perLane,
      keysPerLane: KEYS_PER_LANE,
      rollbackRate: config.rollbackRate,
      messagesPerSecondPerLane: perLane / config.produceSeconds,
      control: config.control,
    }));
    fleet = new ReplicaFleet(replicaConfigs, logDir);
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
    const faults = new FaultInjector(config, fleet, pool);
    let attempted = 0;
    let feeding = true;
    const feeds = feeder.run().finally(() => (feeding = false));
    const producing = (): boolean => feeding || attempted < lanes * perLane;
    const injecting = faults.run(() => !producing());
    let unfinished = Number.NaN;
    const deadline = { at: Number.POSITIVE_INFINITY };
    for (let tick = 0; ; tick += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      attempted = (await pool.query<{ n: number }>(countAttempts(tables))).rows[0].n;
      unfinished = (await pool.query<{ n: number }>(countUnfinished(tables))).rows[0].n;
      if (tick % 5 === 0) {
        progress(
          `t=${elapsed()}s attempted=${attempted}/${lanes * perLane} fed=${feeder.acknowledged} sink=${sink.received} unfinished=${unfinished} ` +
            `kills=${faults.kills} stops=${faults.stops} terminations=${faults.terminations} crashes=${fleet.crashes}`,
        );
      }
      if (fleet.crashes > 50) throw new Error(`replicas keep crashing (${fleet.crashes}); see ${logDir}`);
      if (producing()) continue;
      if (deadline.at === Number.POSITIVE_INFINITY) {
        await injecting;
        deadline.at = performance.now() + config.drainTimeoutMs;
        progress(`t=${elapsed()}s production done, faults over; draining`);
      }
      if (unfinished === 0 || performance.now() > deadline.at) break;
    }
    await feeds;
    await fleet.shutdown(5_000);
    await sink.stop();
    await feeder.save(pool, tables);
    const checks = (await pool.query<CheckCounters>(chaosChecks(tables))).rows[0];
    const verdict = verdictOf(checks, { kills: faults.kills, stops: faults.stops, terminations: faults.terminations, terminatedBackends: faults.terminatedBackends, crashes: fleet.crashes }, elapsed(), config.control);
    if (!verdict.pass) {
      progress(`failed: ${verdict.reasons.join(', ')}`);
      for (const row of (await pool.query(flaggedAuditRows(tables))).rows) progress(`flagged write: ${JSON.stringify(row)}`);
    }
    console.log(verdict.line);
    return verdict.pass ? 0 : 1;
  } finally {
    await fleet?.shutdown(5_000);
    await sink.stop().catch(() => undefined);
    if (config.keepSchema) progress(`schema ${schema} kept`);
    else await dropChaosSchema(pool, schema).catch((error: unknown) => progress(`could not drop ${schema}: ${String(error)}`));
    await pool.end();
  }
}

/**
 * Messages per path: 60 % enqueued by producers, 40 % sent to the intake (half relayed, half
 * pulled); a control run enqueues them all.
 */
function splitMessages(config: ChaosConfig): { direct: number; intake: number } {
  const direct = config.control ? config.messages : Math.round(config.messages * 0.6);
  return { direct, intake: config.messages - direct };
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
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
