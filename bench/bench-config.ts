/** Sizes of the bench, each overridable by an environment variable (defaults keep the whole run near 2–3 minutes). */
export interface BenchConfig {
  scenarios: Set<string>;
  drain: { rows: number; keys: number; batch: number; concurrencies: number[]; pollIntervalMs: number; nullKeys: boolean; libSqlBaseline: boolean; repeats: number };
  latency: { rate: number; seconds: number; keys: number };
  enqueue: { rows: number; producers: number; repeats: number; workersOn: boolean; notifyOff: boolean; warmupRows: number; statementCost: number };
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function intList(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a comma-separated list of positive integers, got "${raw}"`);
    return value;
  });
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
      concurrencies: intList('QUEUEBOX_BENCH_DRAIN_CONCURRENCY', [100, 200]),
      pollIntervalMs: int('QUEUEBOX_BENCH_DRAIN_POLL_MS', 10),
      nullKeys: bool('QUEUEBOX_BENCH_DRAIN_NULL_KEYS', true),
      libSqlBaseline: bool('QUEUEBOX_BENCH_DRAIN_LIB_SQL', true),
      repeats: Math.max(1, int('QUEUEBOX_BENCH_DRAIN_REPEATS', 3)),
    },
    latency: {
      rate: int('QUEUEBOX_BENCH_LATENCY_RATE', 500),
      seconds: int('QUEUEBOX_BENCH_LATENCY_SECONDS', 10),
      keys: int('QUEUEBOX_BENCH_LATENCY_KEYS', 1_000),
    },
    enqueue: {
      rows: int('QUEUEBOX_BENCH_ENQUEUE_ROWS', 10_000),
      producers: int('QUEUEBOX_BENCH_ENQUEUE_PRODUCERS', 16),
      repeats: int('QUEUEBOX_BENCH_ENQUEUE_REPEATS', 4),
      workersOn: bool('QUEUEBOX_BENCH_ENQUEUE_WORKERS_ON', true),
      notifyOff: bool('QUEUEBOX_BENCH_ENQUEUE_NOTIFY_OFF', true),
      warmupRows: int('QUEUEBOX_BENCH_ENQUEUE_WARMUP_ROWS', 1_000),
      statementCost: int('QUEUEBOX_BENCH_STATEMENT_COST_COUNT', 3_000),
    },
  };
}
