/** Sizes of the bench, each overridable by an environment variable (defaults keep the whole run near 2–3 minutes). */
export interface BenchConfig {
  scenarios: Set<string>;
  drain: { rows: number; keys: number; batch: number; concurrency: number; pollIntervalMs: number; nullKeys: boolean; libSqlBaseline: boolean };
  latency: { rate: number; seconds: number; keys: number };
  enqueue: { rows: number; producers: number; repeats: number; workersOn: boolean; warmupRows: number };
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw.toLowerCase() === 'true';
}

export function readBenchConfig(): BenchConfig {
  const scenarios = (process.env.QUEUEBOX_BENCH_SCENARIOS ?? 'drain,latency,enqueue')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    scenarios: new Set(scenarios),
    drain: {
      rows: int('QUEUEBOX_BENCH_DRAIN_ROWS', 20_000),
      keys: int('QUEUEBOX_BENCH_DRAIN_KEYS', 1_000),
      batch: int('QUEUEBOX_BENCH_DRAIN_BATCH', 100),
      concurrency: int('QUEUEBOX_BENCH_DRAIN_CONCURRENCY', 100),
      pollIntervalMs: int('QUEUEBOX_BENCH_DRAIN_POLL_MS', 10),
      nullKeys: bool('QUEUEBOX_BENCH_DRAIN_NULL_KEYS', true),
      libSqlBaseline: bool('QUEUEBOX_BENCH_DRAIN_LIB_SQL', true),
    },
    latency: {
      rate: int('QUEUEBOX_BENCH_LATENCY_RATE', 500),
      seconds: int('QUEUEBOX_BENCH_LATENCY_SECONDS', 10),
      keys: int('QUEUEBOX_BENCH_LATENCY_KEYS', 1_000),
    },
    enqueue: {
      rows: int('QUEUEBOX_BENCH_ENQUEUE_ROWS', 10_000),
      producers: int('QUEUEBOX_BENCH_ENQUEUE_PRODUCERS', 16),
      repeats: int('QUEUEBOX_BENCH_ENQUEUE_REPEATS', 2),
      workersOn: bool('QUEUEBOX_BENCH_ENQUEUE_WORKERS_ON', true),
      warmupRows: int('QUEUEBOX_BENCH_ENQUEUE_WARMUP_ROWS', 1_000),
    },
  };
}
