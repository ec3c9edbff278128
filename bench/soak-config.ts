import { fileURLToPath } from 'node:url';

/** The soak's settings (`npm run bench:soak -- --minutes 10`); every one has a default, so a bare run is the hour the issue asks for. */
export interface SoakConfig {
  /** Length of the production phase, in one-minute samples. `--minutes`, default 60. */
  minutes: number;
  /** Replica processes, each running QueueBox's workers and a producer. `--replicas`, default 4. */
  replicas: number;
  /** Offered load as a share of the rate measured first. `--load`, default 0.7. */
  loadShare: number;
  /** A fixed offered rate (msg/s) instead of a share of the measured one (to repeat an earlier run's load). `--rate`. */
  rate?: number;
  /** `retention.outboxSentMs` of every replica. `--retention-seconds`; default a tenth of the run, 60 s to 300 s. */
  retentionMs: number;
  /** Ordering keys over all replicas (0: messages without a key). `--keys`, default 1,000. */
  keys: number;
  /** Messages per producer transaction. `--batch`, default 10. */
  batch: number;
  /** Rows of the measured drain (a fifth of it drains first as a warm-up). `--drain-rows`, default 50,000. */
  drainRows: number;
  /** Each replica's pool. */
  poolSize: number;
  /** Producer transactions in flight at once per replica; past it the producer falls behind (and says so). */
  producerInFlight: number;
  /** Name of the output files. `--label`, default `soak-<minutes>min`. */
  label: string;
  /** Where the PNG goes (docs/images/). */
  imageDir: string;
  /** Where the per-minute series go, as CSV and JSON (docs/data/). */
  dataDir: string;
}

/** The retention sweeper's interval: QueueBox's default (`retention.intervalMs`), which the soak does not set. */
export const RETENTION_INTERVAL_MS = 60_000;

/** One sample per minute: the issue's series are per minute. */
export const SAMPLE_MS = 60_000;

const FLAGS = [
  'minutes',
  'replicas',
  'load',
  'rate',
  'retention-seconds',
  'keys',
  'batch',
  'drain-rows',
  'label',
] as const;
type Flag = (typeof FLAGS)[number];

/** `--name value` and `--name=value`; an unknown flag or a missing value is an error that names it. */
function parseArgs(argv: readonly string[]): Map<Flag, string> {
  const values = new Map<Flag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1] as Flag | undefined;
    if (!match || !FLAGS.includes(name!))
      throw new Error(`bench:soak: unknown argument "${arg}" (known: ${FLAGS.map((f) => `--${f}`).join(', ')})`);
    const value = match[2] ?? argv[++i];
    if (value === undefined || value.startsWith('--')) throw new Error(`bench:soak: --${name} needs a value`);
    values.set(name!, value);
  }
  return values;
}

function positiveInt(values: Map<Flag, string>, name: Flag, fallback: number, min = 1): number {
  const raw = values.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`bench:soak: --${name} must be an integer ≥ ${min}, got "${raw}"`);
  return value;
}

export function readSoakConfig(argv: readonly string[] = process.argv.slice(2)): SoakConfig {
  const values = parseArgs(argv);
  const minutes = positiveInt(values, 'minutes', 60, 3);
  const rawLoad = values.get('load');
  const loadShare = rawLoad === undefined ? 0.7 : Number(rawLoad);
  if (!(loadShare > 0 && loadShare <= 2))
    throw new Error(`bench:soak: --load must be a share of the drain rate in (0, 2], got "${rawLoad}"`);
  // Short enough that rows are deleted for most of the run, long enough that the table holds minutes of messages.
  const defaultRetentionS = Math.min(300, Math.max(60, Math.round((minutes * 60) / 10)));
  const retentionS = positiveInt(values, 'retention-seconds', defaultRetentionS);
  const label = values.get('label') ?? `soak-${minutes}min`;
  if (!/^[A-Za-z0-9._-]{1,80}$/.test(label))
    throw new Error(`bench:soak: --label must be 1–80 letters, digits, ".", "_" or "-", got "${label}"`);
  return {
    minutes,
    replicas: positiveInt(values, 'replicas', 4),
    loadShare,
    ...(values.has('rate') ? { rate: positiveInt(values, 'rate', 0) } : {}),
    retentionMs: retentionS * 1000,
    keys: positiveInt(values, 'keys', 1_000, 0),
    batch: positiveInt(values, 'batch', 10),
    drainRows: positiveInt(values, 'drain-rows', 50_000, 1_000),
    poolSize: 20,
    producerInFlight: 10,
    label,
    // From bench/dist/bench/ back to the repository.
    imageDir: fileURLToPath(new URL('../../../docs/images/', import.meta.url)),
    dataDir: fileURLToPath(new URL('../../../docs/data/', import.meta.url)),
  };
}

/**
 * The minute from which the table should hold a steady amount: rows are deleted within one sweep
 * interval of reaching the retention age, so the table stops growing after retention + interval;
 * one more minute lets the first deletions' space be vacuumed.
 */
export function steadyFromMinute(config: Pick<SoakConfig, 'retentionMs'>): number {
  return Math.ceil((config.retentionMs + RETENTION_INTERVAL_MS) / SAMPLE_MS) + 1;
}

/** The minutes compared (first against last): ten of each in a run of 30 minutes or more, else a third of the run each. */
export function comparisonWindow(minutes: number): { minutes: number; thirds: boolean } {
  return minutes >= 30 ? { minutes: 10, thirds: false } : { minutes: Math.floor(minutes / 3), thirds: true };
}
