import { percentile } from './bench-stats.js';
import type { SoakReplicaWindow } from './soak-replica.process.js';
import type { TableReading, TupleReading } from './soak-table-stats.js';

/** One minute of the soak: the row of the CSV and the point of every plotted series; sizes and tuples as the minute's last reading found them. */
export interface SoakMinute extends Pick<
  TableReading,
  'totalBytes' | 'tableBytes' | 'indexBytes' | 'indexes' | 'liveTuples' | 'deadTuples'
> {
  minute: number;
  /** When the minute ended (UTC, ISO 8601). */
  endedAt: string;
  offeredPerSecond: number;
  enqueuedPerSecond: number;
  publishedPerSecond: number;
  /** Messages the producers owed at the minute's end (due, not sent: the producers' own lag). */
  producerBehind: number;
  failedTransactions: number;
  /** Pending and in-flight rows at the minute's end. */
  backlog: number;
  endToEndP50Ms: number;
  endToEndP99Ms: number;
  endToEndMaxMs: number;
  claimP50Ms: number;
  claimP99Ms: number;
  claims: number;
  /** Claim statements that failed (statement timeouts): their time is in the claim percentiles too. */
  claimErrors: number;
  rowsPerClaim: number;
  commitP50Ms: number;
  commitP99Ms: number;
  /** The most dead tuples of the readings within the minute (one every 5 s). */
  deadTuplesMax: number;
  /** Rows deleted in the minute (`n_tup_del`: retention's DELETEs). */
  deletedRows: number;
  insertedRows: number;
  autovacuumCount: number;
  autovacuums: number;
  lastAutovacuum: string | null;
  /** Share of the minute's readings that found a VACUUM of the table running. */
  vacuumBusyShare: number;
  oldestFinishedSeconds: number;
  /** The oldest snapshot seen in the minute's readings (seconds its transaction had run), and whose: a long one holds dead rows in place. */
  oldestSnapshotSeconds: number;
  oldestSnapshotHolder: string;
  /** CPU of the replicas' processes and of the server's, as a share of one core (the server's when it is the bench's own). */
  replicasCpuPercent: number;
  postgresCpuPercent: number | null;
  loadAverage: number;
  /** What the active backends waited on over the minute (pg_stat_activity, 5 samples a second), largest first. */
  waits: string;
}

export interface MinuteInput {
  minute: number;
  ms: number;
  offeredPerSecond: number;
  windows: readonly SoakReplicaWindow[];
  table: TableReading;
  previous: TableReading;
  tuples: readonly TupleReading[];
  postgresCpuMs: number | null;
  loadAverage: number;
  waits: string;
}

const round = (value: number, digits: number): number =>
  Number.isFinite(value) ? Number(value.toFixed(digits)) : value;

/** Merges the replicas' windows and the table's readings into the minute's row. */
export function buildMinute(input: MinuteInput): SoakMinute {
  const { windows, table, previous } = input;
  const seconds = input.ms / 1000;
  const sum = (pick: (w: SoakReplicaWindow) => number): number => windows.reduce((total, w) => total + pick(w), 0);
  const endToEnd = windows.flatMap((w) => w.endToEndMs);
  const claims = windows.flatMap((w) => w.claimMs);
  const commits = windows.flatMap((w) => w.commitMs);
  const readings = [...input.tuples, { deadTuples: table.deadTuples, liveTuples: table.liveTuples }];
  const oldest = input.tuples.reduce<TupleReading | undefined>(
    (max, t) => (max === undefined || t.oldestSnapshotSeconds > max.oldestSnapshotSeconds ? t : max),
    undefined,
  );
  return {
    minute: input.minute,
    endedAt: new Date().toISOString(),
    offeredPerSecond: round(input.offeredPerSecond, 1),
    enqueuedPerSecond: round(sum((w) => w.enqueued) / seconds, 1),
    publishedPerSecond: round(sum((w) => w.published) / seconds, 1),
    producerBehind: sum((w) => w.behind),
    failedTransactions: sum((w) => w.failedTransactions),
    backlog: table.backlog,
    endToEndP50Ms: round(percentile(endToEnd, 50), 2),
    endToEndP99Ms: round(percentile(endToEnd, 99), 2),
    endToEndMaxMs: round(
      endToEnd.reduce((max, v) => Math.max(max, v), Number.NaN),
      2,
    ),
    claimP50Ms: round(percentile(claims, 50), 2),
    claimP99Ms: round(percentile(claims, 99), 2),
    claims: claims.length,
    claimErrors: sum((w) => w.claimErrors),
    rowsPerClaim: round(sum((w) => w.claimedRows) / Math.max(claims.length, 1), 1),
    commitP50Ms: round(percentile(commits, 50), 2),
    commitP99Ms: round(percentile(commits, 99), 2),
    totalBytes: table.totalBytes,
    tableBytes: table.tableBytes,
    indexBytes: table.indexBytes,
    indexes: table.indexes,
    liveTuples: table.liveTuples,
    deadTuples: table.deadTuples,
    deadTuplesMax: Math.max(...readings.map((r) => r.deadTuples)),
    deletedRows: table.deletedRows - previous.deletedRows,
    insertedRows: table.insertedRows - previous.insertedRows,
    autovacuumCount: table.autovacuumCount,
    autovacuums: table.autovacuumCount - previous.autovacuumCount,
    lastAutovacuum: table.lastAutovacuum,
    vacuumBusyShare:
      input.tuples.length === 0 ? 0 : round(input.tuples.filter((t) => t.vacuuming).length / input.tuples.length, 2),
    oldestFinishedSeconds: round(table.oldestFinishedSeconds, 1),
    oldestSnapshotSeconds: round(oldest?.oldestSnapshotSeconds ?? 0, 1),
    oldestSnapshotHolder: oldest?.oldestSnapshotHolder ?? '',
    replicasCpuPercent: round((sum((w) => w.nodeCpuMs) / input.ms) * 100, 1),
    postgresCpuPercent: input.postgresCpuMs === null ? null : round((input.postgresCpuMs / input.ms) * 100, 1),
    loadAverage: round(input.loadAverage, 2),
    waits: input.waits,
  };
}

/** The CSV columns: every scalar of a minute (the per-index sizes are in the JSON). */
const COLUMNS = [
  'minute',
  'endedAt',
  'offeredPerSecond',
  'enqueuedPerSecond',
  'publishedPerSecond',
  'producerBehind',
  'failedTransactions',
  'backlog',
  'endToEndP50Ms',
  'endToEndP99Ms',
  'endToEndMaxMs',
  'claimP50Ms',
  'claimP99Ms',
  'claims',
  'claimErrors',
  'rowsPerClaim',
  'commitP50Ms',
  'commitP99Ms',
  'totalBytes',
  'tableBytes',
  'indexBytes',
  'liveTuples',
  'deadTuples',
  'deadTuplesMax',
  'deletedRows',
  'insertedRows',
  'autovacuumCount',
  'autovacuums',
  'lastAutovacuum',
  'vacuumBusyShare',
  'oldestFinishedSeconds',
  'oldestSnapshotSeconds',
  'oldestSnapshotHolder',
  'replicasCpuPercent',
  'postgresCpuPercent',
  'loadAverage',
  'waits',
] as const satisfies readonly (keyof SoakMinute)[];

export function seriesCsv(minutes: readonly SoakMinute[]): string {
  // The wait profile holds commas: quoted, as CSV quotes.
  const cell = (value: unknown): string =>
    value === null || value === undefined
      ? ''
      : typeof value === 'string' && /[",]/.test(value)
        ? `"${value.replaceAll('"', '""')}"`
        : String(value);
  return [COLUMNS.join(','), ...minutes.map((m) => COLUMNS.map((c) => cell(m[c])).join(','))].join('\n') + '\n';
}
