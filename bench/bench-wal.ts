import type pg from 'pg';
import { performance } from 'node:perf_hooks';
import { sleep } from './bench-stats.js';

/** The admin pool's application_name: every other client backend belongs to the system under test. */
export const ADMIN_APPLICATION_NAME = 'queuebox-bench-admin';

/** The server's WAL position and its cumulative WAL statistics (pg_stat_wal, PostgreSQL 14+) at one moment. */
export interface WalReading {
  lsn: string;
  records: number;
  fullPageImages: number;
  /** WAL flushes to disk (issue_xlog_fsync calls): with synchronous_commit on, about one per commit group. */
  syncs: number;
  writes: number;
}

/** WAL per message finished over one run. */
export interface WalPerMessage {
  bytes: number;
  records: number;
  fullPageImages: number;
  /** WAL flushes per message: below 1 when commits share a flush (group commit) or a transaction finishes many messages. */
  syncs: number;
}

/**
 * Statistics a backend has not flushed yet would land in a later reading: PostgreSQL 15 flushes a
 * busy backend's statistics at most once a second, and an idle one only after 10 s. Each admin
 * connection is told to flush when it next goes idle (before it answers), so the reading that
 * follows sees everything the admin connections did (seeding, VACUUM, CHECKPOINT).
 */
async function flushAdminStats(admin: pg.Pool): Promise<void> {
  const clients = await Promise.all(Array.from({ length: admin.options.max ?? 2 }, () => admin.connect()));
  try {
    await Promise.all(clients.map((client) => client.query('SELECT pg_stat_force_next_flush()')));
  } finally {
    for (const client of clients) client.release();
  }
}

async function readWal(admin: pg.Pool): Promise<WalReading> {
  const { rows } = await admin.query<{ lsn: string; records: string; fpi: string; syncs: string; writes: string }>(
    `SELECT pg_current_wal_lsn()::text AS lsn, wal_records::text AS records, wal_fpi::text AS fpi, wal_sync::text AS syncs, wal_write::text AS writes FROM pg_stat_wal`,
  );
  const row = rows[0];
  return {
    lsn: row.lsn,
    records: Number(row.records),
    fullPageImages: Number(row.fpi),
    syncs: Number(row.syncs),
    writes: Number(row.writes),
  };
}

/**
 * Waits until no client backend but the admin pool's is left (a backend flushes its statistics as
 * it exits, so the system's WAL counts are complete once its connections are gone), at most 3 s.
 */
async function waitForSystemBackendsGone(admin: pg.Pool): Promise<void> {
  const deadline = performance.now() + 3_000;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name <> $1`,
      [ADMIN_APPLICATION_NAME],
    );
    if (rows[0].n === 0 || performance.now() > deadline) return;
    await sleep(10);
  }
}

/**
 * WAL accounting of one run, cluster-wide (the embedded server is the bench's alone): the LSN
 * advance at start and stop (exact), and pg_stat_wal's records, full-page images and flushes,
 * read once the system's connections have closed. Autovacuum and the checkpointer count too;
 * a CHECKPOINT before each run (see `settleBeforeRun`) makes every system pay its first touch
 * of each page with a full-page image alike.
 */
export class WalMeter {
  private before?: Promise<WalReading>;
  private lsnAtStop?: Promise<string>;

  constructor(private readonly admin: pg.Pool) {}

  /** Takes the starting reading (not awaited: a run's clocks start inside a callback). */
  start(): void {
    this.before ??= readWal(this.admin);
  }

  /** Marks the end of the run: the WAL position now. */
  stop(): void {
    this.lsnAtStop ??= this.admin
      .query<{ lsn: string }>(`SELECT pg_current_wal_lsn()::text AS lsn`)
      .then((r) => r.rows[0].lsn);
  }

  /** Per message; call after the system under test has closed its connections. */
  async perMessage(messages: number): Promise<WalPerMessage | undefined> {
    if (!this.before || !this.lsnAtStop) return undefined;
    const before = await this.before;
    const lsnAtStop = await this.lsnAtStop;
    await waitForSystemBackendsGone(this.admin);
    await flushAdminStats(this.admin);
    const after = await readWal(this.admin);
    const { rows } = await this.admin.query<{ bytes: string }>(
      `SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS bytes`,
      [lsnAtStop, before.lsn],
    );
    const per = (n: number): number => n / Math.max(messages, 1);
    return {
      bytes: per(Number(rows[0].bytes)),
      records: per(after.records - before.records),
      fullPageImages: per(after.fullPageImages - before.fullPageImages),
      syncs: per(after.syncs - before.syncs),
    };
  }
}

/**
 * Before a run's clocks start: a CHECKPOINT (every system then writes a full-page image on its
 * first change of each page, rather than whichever ran after the last timed checkpoint) and a
 * flush of the admin connections' statistics (the seeding's WAL stays out of the run).
 */
export async function settleBeforeRun(admin: pg.Pool): Promise<void> {
  await admin.query('CHECKPOINT');
  await flushAdminStats(admin);
}
