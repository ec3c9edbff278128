/** Sizes of the bench, each overridable by an environment variable (defaults keep the whole run near 2–3 minutes). */
export interface BenchConfig {
  scenarios: Set<string>;
  drain: {
    rows: number;
    keys: number;
    batch: number;
    concurrencies: number[];
    pollIntervalMs: number;
    nullKeys: boolean;
    repeats: number;
  };
  latency: { rate: number; seconds: number; keys: number };
  enqueue: {
    rows: number;
    producers: number;
    repeats: number;
    workersOn: boolean;
    notifyOff: boolean;
    warmupRows: number;
    statementCost: number;
  };
  peers: PeersConfig;
}

/** The side-by-side scenarios (issue 8): QueueBox, the raw loops, graphile-worker and pg-boss in one run. */
export interface PeersConfig {
  /** Paired repetitions; each scenario prints the median. `--reps=N`, QUEUEBOX_BENCH_REPS. */
  reps: number;
  /** Pre-inserted no-op messages of an unordered drain. */
  rows: number;
  /** Loops-equivalents of the unordered drain: L raw loops of `slotsPerLoop` rows = L × slotsPerLoop in flight. */
  loops: number[];
  /**
   * Rows a raw loop claims per round trip: 100, the LIMIT of the common hand-written SKIP LOCKED
   * loop (`… ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED`), so L loops keep 100·L rows in flight.
   */
  slotsPerLoop: number;
  /** Keys of the ordered drains, and the rows of each (fewer keys drain slower by design). */
  ordered: { keys: number; rows: number }[];
  /** Loops-equivalent of the ordered drains. */
  orderedLoops: number;
  /** Longest one run may take; a run cut short reports the rate of what it finished. */
  runCapMs: number;
  /** The same for the ordered drains, where the slowest systems run at tens of messages per second. */
  orderedCapMs: number;
  producer: { rates: number[]; seconds: number; keys: number };
  pull: { rows: number; concurrency: number };
  backlog: { finished: number; pending: number; keys: number; claims: number };
}

/** The batch of the common hand-written SKIP LOCKED loop, which the raw loops claim per round trip. */
const HAND_WRITTEN_BATCH = 100;

/** Rows of an ordered drain by its key count (fewer keys drain slower by design). */
const ORDERED_ROWS_BY_KEYS = new Map([
  [100, 20_000],
  [10, 10_000],
  [1, 3_000],
]);

/** `--quick`: a smoke run of every scenario at small sizes (the figures mean little). */
function peersConfig(quick: boolean, reps: number): PeersConfig {
  if (quick) {
    return {
      reps,
      rows: 2_000,
      loops: [1, 10],
      slotsPerLoop: HAND_WRITTEN_BATCH,
      ordered: [{ keys: 1, rows: 200 }],
      orderedLoops: 10,
      runCapMs: 30_000,
      orderedCapMs: 5_000,
      producer: { rates: [1_000], seconds: 2, keys: 100 },
      pull: { rows: 300, concurrency: 10 },
      backlog: { finished: 20_000, pending: 2_000, keys: 5, claims: 5 },
    };
  }
  return {
    reps,
    rows: int('QUEUEBOX_BENCH_PEERS_ROWS', 20_000),
    loops: intList('QUEUEBOX_BENCH_PEERS_LOOPS', [1, 10]),
    slotsPerLoop: HAND_WRITTEN_BATCH,
    ordered: intList('QUEUEBOX_BENCH_ORDERED_KEYS', [100, 10, 1]).map((keys) => ({
      keys,
      rows: int('QUEUEBOX_BENCH_ORDERED_ROWS', 0) || (ORDERED_ROWS_BY_KEYS.get(keys) ?? 10_000),
    })),
    orderedLoops: 10,
    runCapMs: int('QUEUEBOX_BENCH_RUN_CAP_MS', 90_000),
    orderedCapMs: int('QUEUEBOX_BENCH_ORDERED_CAP_MS', 30_000),
    producer: {
      rates: intList('QUEUEBOX_BENCH_PRODUCER_RATES', [200, 1_000]),
      seconds: int('QUEUEBOX_BENCH_PRODUCER_SECONDS', 10),
      keys: 100,
    },
    pull: { rows: int('QUEUEBOX_BENCH_PULL_ROWS', 5_000), concurrency: 10 },
    backlog: {
      finished: int('QUEUEBOX_BENCH_BACKLOG_FINISHED', 1_000_000),
      pending: int('QUEUEBOX_BENCH_BACKLOG_PENDING', 100_000),
      keys: 5,
      claims: 20,
    },
  };
}

/** The command line: `--quick` and `--reps=N` (after `npm run bench --`). */
function readArgs(argv: readonly string[]): { quick: boolean; reps: number | undefined } {
  let quick = false;
  let reps: number | undefined;
  for (const arg of argv) {
    if (arg === '--quick') quick = true;
    else if (arg.startsWith('--reps=')) {
      reps = Number(arg.slice('--reps='.length));
      if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got "${arg}"`);
    } else throw new Error(`unknown argument "${arg}" (known: --quick, --reps=N)`);
  }
  return { quick, reps };
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
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} must be a comma-separated list of positive integers, got "${raw}"`);
    return value;
  });
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw.toLowerCase() === 'true';
}

/** The scenarios of a plain `npm run bench`: the side-by-side ones. The older drain, latency and enqueue scenarios run when named. */
export const DEFAULT_SCENARIOS = 'peers,ordered,producer,pull,backlog';

export function readBenchConfig(argv: readonly string[] = process.argv.slice(2)): BenchConfig {
  const args = readArgs(argv);
  const reps = args.reps ?? (args.quick ? 1 : Math.max(1, int('QUEUEBOX_BENCH_REPS', 3)));
  const scenarios = (process.env.QUEUEBOX_BENCH_SCENARIOS ?? DEFAULT_SCENARIOS)
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
    peers: peersConfig(args.quick, reps),
  };
}

/**
 * QUEUEBOX_BENCH_CONSUMER_ASYNC_COMMIT=1: an experiment, not a configuration QueueBox offers
 * today: the outbox consumers' connections commit with synchronous_commit off (claims and
 * completions no longer wait for a WAL flush; producers and pull workers keep it on).
 */
export const consumerAsyncCommit = (): boolean => bool('QUEUEBOX_BENCH_CONSUMER_ASYNC_COMMIT', false);
