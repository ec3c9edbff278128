import type pg from 'pg';
import { outboxTable } from './bench-schema.js';

/** The outbox table as PostgreSQL reports it at one moment. */
export interface TableReading {
  /** `pg_total_relation_size`: heap, TOAST, free space and visibility maps, and every index. */
  totalBytes: number;
  /** `pg_table_size`: everything but the indexes. */
  tableBytes: number;
  /** `pg_indexes_size`. */
  indexBytes: number;
  /** Each index's `pg_relation_size`, by name. */
  indexes: Record<string, number>;
  /** `pg_stat_user_tables` (cumulative counters since the soak reset them). */
  liveTuples: number;
  deadTuples: number;
  insertedRows: number;
  deletedRows: number;
  autovacuumCount: number;
  autoanalyzeCount: number;
  lastAutovacuum: string | null;
  /** Pending and in-flight rows. */
  backlog: number;
  /** Age of the lowest-id finished row, seconds (0 when there is none): what retention has not deleted yet. */
  oldestFinishedSeconds: number;
}

/** The cheap part of a reading, taken every few seconds between the minutes. */
export interface TupleReading {
  deadTuples: number;
  liveTuples: number;
  /** A VACUUM of the table is running (`pg_stat_progress_vacuum`). */
  vacuuming: boolean;
  /**
   * The oldest snapshot any session holds (`pg_stat_activity.backend_xmin`), in seconds since its
   * transaction began, and whose it is: while it lives, no row version that died after it can be
   * removed, by VACUUM or by the index scans that skip dead entries.
   */
  oldestSnapshotSeconds: number;
  oldestSnapshotHolder: string;
}

const n = (value: string | number | null): number => (value === null ? 0 : Number(value));

/**
 * Reads sizes, tuple counts and autovacuum runs of the soak's outbox table. The statistics come
 * from `pg_stat_user_tables`, which backends update at most once a second: a reading is as fresh
 * as that.
 */
export async function readTable(admin: pg.Pool, schema: string): Promise<TableReading> {
  const table = outboxTable(schema);
  const [sizes, indexes, work] = await Promise.all([
    admin.query<Record<string, string | null>>(
      `SELECT pg_total_relation_size(c.oid) AS total, pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS index_bytes,
              s.n_live_tup, s.n_dead_tup, s.n_tup_ins, s.n_tup_del, s.autovacuum_count, s.autoanalyze_count,
              to_char(s.last_autovacuum AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_autovacuum
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.oid = $1::regclass`,
      [table],
    ),
    admin.query<{ name: string; bytes: string }>(
      `SELECT i.indexrelid::regclass::text AS name, pg_relation_size(i.indexrelid) AS bytes FROM pg_index i WHERE i.indrelid = $1::regclass ORDER BY 1`,
      [table],
    ),
    // The backlog through the partial indexes of unfinished rows; the oldest finished row as
    // retention finds it, by the primary key from the front (no index has finished_at first).
    admin.query<{ backlog: string; oldest: string | null }>(
      `SELECT (SELECT count(*) FROM ${table} WHERE state IN ('pending', 'processing')) AS backlog,
              (SELECT EXTRACT(EPOCH FROM clock_timestamp() - f.finished_at) FROM ${table} AS f WHERE f.state IN ('sent', 'dead') ORDER BY f.id LIMIT 1) AS oldest`,
    ),
  ]);
  const row = sizes.rows[0];
  return {
    totalBytes: n(row.total),
    tableBytes: n(row.table_bytes),
    indexBytes: n(row.index_bytes),
    indexes: Object.fromEntries(
      indexes.rows.map((r) => [r.name.replace(/^.*\./, '').replaceAll('"', ''), Number(r.bytes)]),
    ),
    liveTuples: n(row.n_live_tup),
    deadTuples: n(row.n_dead_tup),
    insertedRows: n(row.n_tup_ins),
    deletedRows: n(row.n_tup_del),
    autovacuumCount: n(row.autovacuum_count),
    autoanalyzeCount: n(row.autoanalyze_count),
    lastAutovacuum: row.last_autovacuum,
    backlog: n(work.rows[0].backlog),
    oldestFinishedSeconds: n(work.rows[0].oldest),
  };
}

export async function readTuples(admin: pg.Pool, schema: string): Promise<TupleReading> {
  const { rows } = await admin.query<{
    dead: string;
    live: string;
    vacuuming: boolean;
    oldest: string | null;
    holder: string | null;
  }>(
    `SELECT s.n_dead_tup AS dead, s.n_live_tup AS live,
            EXISTS (SELECT 1 FROM pg_stat_progress_vacuum p WHERE p.relid = s.relid) AS vacuuming,
            h.oldest, h.holder
     FROM pg_stat_user_tables s
     LEFT JOIN LATERAL (
       SELECT EXTRACT(EPOCH FROM clock_timestamp() - a.xact_start) AS oldest,
              CASE WHEN a.backend_type = 'client backend' THEN COALESCE(NULLIF(a.application_name, ''), 'client') || ': ' || left(regexp_replace(a.query, '\\s+', ' ', 'g'), 40)
                   ELSE a.backend_type || ': ' || left(a.query, 60) END AS holder
       FROM pg_stat_activity a
       WHERE a.backend_xmin IS NOT NULL AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
       ORDER BY a.xact_start LIMIT 1) AS h ON true
     WHERE s.relid = $1::regclass`,
    [outboxTable(schema)],
  );
  const row = rows[0];
  return {
    deadTuples: Number(row.dead),
    liveTuples: Number(row.live),
    vacuuming: row.vacuuming,
    oldestSnapshotSeconds: row.oldest === null ? 0 : Number(row.oldest),
    oldestSnapshotHolder: row.holder ?? '',
  };
}

/**
 * Empties the table after the drain measurement and zeroes its statistics, so that the soak's
 * series start from an empty table. The replicas keep running: TRUNCATE waits for their
 * statements in flight, and their prepared statements stay valid (the table keeps its OID).
 */
export async function resetTable(admin: pg.Pool, schema: string): Promise<void> {
  const table = outboxTable(schema);
  await admin.query(`TRUNCATE ${table}`);
  await admin.query(`SELECT pg_stat_reset_single_table_counters($1::regclass)`, [table]);
}
