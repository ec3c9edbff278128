/**
 * One scenario against one QueueBox build, for compare-builds.ts. compare-builds copies this file
 * (compiled) into `<build>/node_modules/.queuebox-compare/`, so that NestJS, TypeORM and pg
 * resolve from that build's own node_modules; QueueBox itself is imported from `<build>/dist`.
 * It therefore imports no other bench module. Modes (argv[2]):
 *
 *   drain   <url> <build> <rows> <keys> [<pool>]   drain of a pre-inserted backlog, QueueBox defaults
 *   latency <url> <build> <rate> <seconds> <keys>   consumer; forks itself as the producer
 *   producer <json>                        (internal) enqueues at a steady rate, reports over IPC
 *
 * Prints one line `RESULT <json>`: the figures, node CPU per message, and, when
 * QUEUEBOX_COMPARE_POSTMASTER_PID names the (local, bench-only) server's postmaster, PostgreSQL
 * CPU per message; WAL bytes per message from the LSN's advance.
 */
import 'reflect-metadata';
import { Injectable, Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';

/** The part of QueueBox's public API the driver uses, the same in both builds. */
interface QueueBoxApi {
  QueueBoxModule: { forRoot(options: Record<string, unknown>): DynamicModule };
  OutboxService: abstract new (...args: never[]) => {
    enqueue(message: Record<string, unknown>, options: { manager: unknown }): Promise<unknown>;
  };
}
interface MigrationsApi {
  createQueueBoxMigrations(options: { type: 'postgres'; schema: string }): NonNullable<DataSourceOptions['migrations']>;
}

const TABLE = 'queuebox_outbox_messages';
const PAD = 'x'.repeat(180);
const nowEpochMs = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The bench server's postmaster (set by compare-builds), whose processes' CPU time is read from /proc. */
const POSTMASTER_PID = Number(process.env.QUEUEBOX_COMPARE_POSTMASTER_PID ?? '') || undefined;

/** user+system ms of the postmaster and its children (reaped ones through cutime/cstime); as bench-stats.ts, copied: this file imports no bench module. */
function postgresCpuMs(): number {
  if (POSTMASTER_PID === undefined) return Number.NaN;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(entry) === POSTMASTER_PID)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === POSTMASTER_PID) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

const walLsn = async (admin: pg.Pool): Promise<string> =>
  (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
const walBytesSince = async (admin: pg.Pool, lsn: string): Promise<number> =>
  Number(
    (
      await admin.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS bytes', [
        lsn,
      ])
    ).rows[0].bytes,
  );

async function loadBuild(build: string): Promise<{ qb: QueueBoxApi; migrations: MigrationsApi }> {
  const qb = (await import(pathToFileURL(join(build, 'dist/index.js')).href)) as QueueBoxApi;
  // Where the build's own package.json says its migrations are: builds of other layouts compare too.
  const manifest = JSON.parse(readFileSync(join(build, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  const migrations = (await import(
    pathToFileURL(join(build, manifest.exports['./migrations'].default)).href
  )) as MigrationsApi;
  return { qb, migrations };
}

async function createSchema(url: string, migrations: MigrationsApi): Promise<string> {
  const schema = `qbc_${randomBytes(4).toString('hex')}`;
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    schema,
    migrations: migrations.createQueueBoxMigrations({ type: 'postgres', schema }),
    migrationsTableName: 'queuebox_compare_migrations',
  });
  await dataSource.initialize();
  try {
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
  return schema;
}

@Injectable()
class CountingPublisher {
  published = 0;
  onPublish?: (payload: string) => void;

  publish(message: { payload: string }): Promise<void> {
    this.published += 1;
    this.onPublish?.(message.payload);
    return Promise.resolve();
  }
}

async function startApp(
  qb: QueueBoxApi,
  url: string,
  schema: string,
  publisher: CountingPublisher,
  workers: boolean,
  poolSize = 20,
): Promise<INestApplicationContext> {
  @Module({})
  class CompareRootModule {}
  const root: DynamicModule = {
    module: CompareRootModule,
    imports: [
      TypeOrmModule.forRoot({ type: 'postgres', url, schema, extra: { max: poolSize } }),
      qb.QueueBoxModule.forRoot({
        schema,
        workers: { enabled: workers },
        destinations: { noop: { type: 'custom', publisher: CountingPublisher } },
      }),
    ],
    providers: [{ provide: CountingPublisher, useValue: publisher }],
  };
  return NestFactory.createApplicationContext(root, { logger: ['error', 'warn'] });
}

async function closeApp(app: INestApplicationContext): Promise<void> {
  // Lets a coalesced wake-up still due go out before the pool closes.
  await sleep(100);
  await app.close();
}

async function drain(
  url: string,
  build: string,
  rows: number,
  keys: number,
  poolSize: number,
): Promise<Record<string, number>> {
  const { qb, migrations } = await loadBuild(build);
  const schema = await createSchema(url, migrations);
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await admin.query(
      `INSERT INTO "${schema}".${TABLE} (message_id, destination, ordering_key, headers, payload)
       SELECT gen_random_uuid(), 'noop', CASE WHEN $1::integer = 0 THEN NULL ELSE 'key-' || (g % GREATEST($1::integer, 1)) END, '{}'::jsonb,
              json_build_object('seq', g, 'pad', $3::text)::text
       FROM generate_series(0, $2::integer - 1) AS g`,
      [keys, rows, PAD],
    );
    await admin.query(`VACUUM ANALYZE "${schema}".${TABLE}`);
    await admin.query('CHECKPOINT');
    const lsn0 = await walLsn(admin);
    const publisher = new CountingPublisher();
    let startedAt: number | undefined;
    let cpu0: NodeJS.CpuUsage | undefined;
    let pg0 = Number.NaN;
    publisher.onPublish = () => {
      if (startedAt === undefined) {
        startedAt = performance.now();
        cpu0 = process.cpuUsage();
        pg0 = postgresCpuMs();
      }
    };
    const app = await startApp(qb, url, schema, publisher, true, poolSize);
    try {
      const deadline = performance.now() + 180_000;
      while (publisher.published < rows && performance.now() < deadline) await sleep(2);
      const sent = async (): Promise<number> =>
        (
          await admin.query<{ n: number }>(
            `SELECT count(*)::integer AS n FROM "${schema}".${TABLE} WHERE state = 'sent'`,
          )
        ).rows[0].n;
      let done = await sent();
      while (done < rows && performance.now() < deadline) {
        await sleep(2);
        done = await sent();
      }
      const ms = performance.now() - (startedAt ?? performance.now());
      const cpu = process.cpuUsage(cpu0);
      const pgMs = postgresCpuMs() - pg0;
      return {
        msgsPerSecond: (done / ms) * 1000,
        done,
        nodeUsPerMsg: (cpu.user + cpu.system) / Math.max(done, 1),
        postgresUsPerMsg: (pgMs * 1000) / Math.max(done, 1),
        walBytesPerMsg: (await walBytesSince(admin, lsn0)) / Math.max(done, 1),
      };
    } finally {
      await closeApp(app);
    }
  } finally {
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
}

interface ProducerReport {
  commitAt: number[];
  cpuUs: number;
  txPerSecond: number;
}

interface ProducerJob {
  url: string;
  build: string;
  schema: string;
  rate: number;
  seconds: number;
  keys: number;
}

async function producer(job: ProducerJob): Promise<void> {
  const { qb } = await loadBuild(job.build);
  const app = await startApp(qb, job.url, job.schema, new CountingPublisher(), false);
  const outbox = app.get(qb.OutboxService);
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const total = job.rate * job.seconds;
  const commitAt = Array.from({ length: total }, () => Number.NaN);
  const inFlight = new Set<Promise<void>>();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  try {
    while (next < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) * job.rate) / 1000) + 1);
      while (next < due) {
        const seq = next++;
        const task: Promise<void> = dataSource
          .transaction((manager) =>
            outbox.enqueue(
              { destination: 'noop', payload: { seq, pad: PAD }, key: `key-${seq % Math.max(job.keys, 1)}` },
              { manager },
            ),
          )
          .then(() => {
            commitAt[seq] = nowEpochMs();
          });
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
      }
      await sleep(1);
    }
    await Promise.all(inFlight);
  } finally {
    await closeApp(app);
  }
  const cpu = process.cpuUsage(cpu0);
  const report: ProducerReport = {
    commitAt,
    cpuUs: cpu.user + cpu.system,
    txPerSecond: (total / (performance.now() - started)) * 1000,
  };
  await new Promise<void>((resolve, reject) =>
    process.send!(report, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

async function latency(
  url: string,
  build: string,
  rate: number,
  seconds: number,
  keys: number,
): Promise<Record<string, number>> {
  const { qb, migrations } = await loadBuild(build);
  const schema = await createSchema(url, migrations);
  const total = rate * seconds;
  const publishedAt = new Float64Array(total).fill(Number.NaN);
  const publisher = new CountingPublisher();
  publisher.onPublish = (payload) => {
    const { seq } = JSON.parse(payload) as { seq: number };
    if (Number.isNaN(publishedAt[seq])) publishedAt[seq] = nowEpochMs();
  };
  const app = await startApp(qb, url, schema, publisher, true);
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const job: ProducerJob = { url, build, schema, rate, seconds, keys };
    await admin.query('CHECKPOINT');
    const lsn0 = await walLsn(admin);
    const cpu0 = process.cpuUsage();
    const pg0 = postgresCpuMs();
    const child = fork(fileURLToPath(import.meta.url), ['producer', JSON.stringify(job)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = once(child, 'exit');
    const [report] = (await once(child, 'message')) as [ProducerReport];
    await exited;
    const { commitAt } = report;
    const deadline = performance.now() + 15_000;
    while (publishedAt.some(Number.isNaN) && performance.now() < deadline) await sleep(5);
    const cpu = process.cpuUsage(cpu0);
    const pgMs = postgresCpuMs() - pg0;
    const walBytes = await walBytesSince(admin, lsn0);
    // The first 10 % are the warm-up.
    const latencies: number[] = [];
    for (let seq = Math.floor(total * 0.1); seq < total; seq++) {
      const l = publishedAt[seq] - commitAt[seq];
      if (!Number.isNaN(l)) latencies.push(l);
    }
    latencies.sort((a, b) => a - b);
    const at = (p: number): number =>
      latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))];
    return {
      p50: at(50),
      p99: at(99),
      max: latencies.at(-1) ?? Number.NaN,
      published: publishedAt.filter((v) => !Number.isNaN(v)).length,
      total,
      producerTxPerSecond: report.txPerSecond,
      // Both processes: the consumer (this one) and the producer.
      nodeUsPerMsg: (cpu.user + cpu.system + report.cpuUs) / total,
      postgresUsPerMsg: (pgMs * 1000) / total,
      walBytesPerMsg: walBytes / total,
    };
  } finally {
    await closeApp(app);
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'producer') return producer(JSON.parse(args[0]) as ProducerJob);
  const result =
    mode === 'drain'
      ? await drain(args[0], args[1], Number(args[2]), Number(args[3]), Number(args[4] ?? 20))
      : mode === 'latency'
        ? await latency(args[0], args[1], Number(args[2]), Number(args[3]), Number(args[4]))
        : undefined;
  if (!result) throw new Error(`unknown mode "${mode}"`);
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
