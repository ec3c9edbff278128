/**
 * What one chaos run does: its size, its faults and its timings. Two profiles (`long`, the
 * default of `npm run chaos`, and `ci`), overridable on the command line:
 *
 *   --profile ci|long  --messages N  --replicas N  --produce-seconds N  --rate N  --intake-percent N
 *   --control no-fence|no-order  --keep-schema  --external-database  --failover|--no-failover
 *   --pooler pgbouncer  --address vip|dns
 *
 * The database is a private PostgreSQL cluster the run starts (and crashes) itself, found in
 * `CHAOS_PG_BIN` or /usr/lib/postgresql/15/bin; with the failover fault, a pair of them (a
 * primary and its synchronous standby) whose roles the run swaps. With `--external-database` (or
 * without those programs) it is `QUEUEBOX_PG_URL` (else the machine's test database), and there
 * is no crash-restart or failover. With `--pooler pgbouncer`, the replicas reach the database
 * through a PgBouncer of the run's own, in transaction mode. Every run works in a fresh schema of
 * its own, dropped afterwards unless `--keep-schema`.
 */
export type ChaosControl = 'no-fence' | 'no-order';

/** What stands between the replicas and the database, besides the network-cut proxy. */
export type ChaosPooler = 'pgbouncer';

/** How the replicas' address moves at a failover, without a pooler. */
export type ChaosAddress = 'vip' | 'dns';

export interface ChaosConfig {
  profile: 'ci' | 'long';
  url: string;
  /** Messages in total: producer enqueues (committed or not), intake deliveries to relay and to pull. */
  messages: number;
  replicas: number;
  control?: ChaosControl;
  keepSchema: boolean;
  /** Use `url` instead of a private cluster: no crash-restart or failover fault then. */
  externalDatabase: boolean;
  /** The replicas reach the database through this pooler (transaction mode), itself behind the proxy. */
  pooler?: ChaosPooler;
  /**
   * Without a pooler, how the proxy's address moves at a failover: as a virtual IP (`vip`: every
   * open connection is reset) or as a DNS name (`dns`: open connections stay with the old server,
   * a hot standby by then, until their client closes them).
   */
  address: ChaosAddress;
  /**
   * The failover fault: the database is an HA pair (a primary and its synchronous standby, on
   * private clusters), and every other database fault swaps their roles and moves the replicas'
   * address (ha-pair.ts, fault-injector.ts).
   */
  failover: boolean;
  /** A `stale` failover: how long the primary stays drained (read-only, its sessions open) before it stops. */
  drainMs: { min: number; max: number };
  /** A `stale` failover: how long the address still leads to the former primary once it answers as a hot standby. */
  readOnlyMs: { min: number; max: number };
  /** The lease of every claim (outbox, relay, pull), in ms: SIGSTOP outlasts it. */
  leaseMs: number;
  /** How long the producers and the intake sender spread their messages over. */
  produceSeconds: number;
  /** Mean time between two faults of the replicas (SIGSTOP, SIGKILL, terminated sessions). */
  faultEveryMs: number;
  /**
   * Mean time between two faults of the database, which take turns and run alongside the
   * replicas' faults: a network cut (every connection through the proxy silent for `cutMs`, then
   * resumed or reset), a crash-restart (`pg_ctl stop -m immediate`, down `restartDownMs`, then
   * crash recovery) and, with `failover`, a failover every other time.
   */
  databaseFaultEveryMs: number;
  /** How long a network cut lasts: longer than the lease. */
  cutMs: { min: number; max: number };
  /** How long the crashed server stays down. */
  restartDownMs: { min: number; max: number };
  /** The replicas' `statementTimeoutMs`: shorter than a cut, so that the deadline is what ends a silent statement. */
  statementTimeoutMs: number;
  /** A loop whose last tick is older than this after the faults ended is stalled. */
  stallMs: number;
  /** A SIGSTOP lasts this long: past the lease, so that every claim the replica held expires. */
  stopMs: number;
  /**
   * Faults stop once production is over, or after this long, whichever comes first: the rest of
   * the messages then flow without faults, so that a run's length stays bounded on a loaded machine.
   */
  faultWindowMs: number;
  /** Longest wait, after the last fault, for every row to be finished. */
  drainTimeoutMs: number;
  /** Share of the messages sent to the intake (half relayed, half pulled); the rest are enqueued by producers. */
  intakeShare: number;
  /** Share of producer transactions rolled back on purpose. */
  rollbackRate: number;
  /** Share of intake deliveries sent twice (to two replicas at once). */
  duplicateRate: number;
  /** Share of sink answers that are 503, that are delayed a little, that are delayed past the lease. */
  sinkFailRate: number;
  sinkDelayRate: number;
  sinkLongDelayRate: number;
}

const PROFILES = {
  // 60 s of production: the four database faults (two failovers, a cut, a crash-restart), about 10 s apart, all come while messages flow.
  ci: {
    messages: 1_500,
    replicas: 3,
    leaseMs: 2_000,
    produceSeconds: 60,
    faultEveryMs: 2_500,
    databaseFaultEveryMs: 10_000,
    faultWindowFactor: 1.5,
    drainTimeoutMs: 120_000,
    failover: true,
  },
  long: {
    messages: 200_000,
    replicas: 4,
    leaseMs: 3_000,
    produceSeconds: 1_800,
    faultEveryMs: 5_000,
    databaseFaultEveryMs: 60_000,
    faultWindowFactor: 1.2,
    drainTimeoutMs: 900_000,
    failover: true,
  },
} as const;

/** Reads the profile and the command line's overrides; throws on an unknown flag or value. */
export function readChaosConfig(argv: readonly string[]): ChaosConfig {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`chaos: unexpected argument ${JSON.stringify(arg)}`);
    const [name, inline] = arg.slice(2).split('=', 2);
    if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags.set(name, argv[(i += 1)]);
    else flags.set(name, true);
  }
  const known = new Set([
    'profile',
    'messages',
    'replicas',
    'control',
    'keep-schema',
    'produce-seconds',
    'rate',
    'external-database',
    'intake-percent',
    'failover',
    'no-failover',
    'pooler',
    'address',
  ]);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`chaos: unknown option --${name}`);
  const profileName = flags.get('profile') ?? 'long';
  if (profileName !== 'ci' && profileName !== 'long') throw new Error('chaos: --profile must be ci or long');
  const control = flags.get('control');
  if (control !== undefined && control !== 'no-fence' && control !== 'no-order')
    throw new Error('chaos: --control must be no-fence or no-order');
  const pooler = flags.get('pooler');
  if (pooler !== undefined && pooler !== 'pgbouncer') throw new Error('chaos: --pooler must be pgbouncer');
  const address = flags.get('address') ?? 'vip';
  if (address !== 'vip' && address !== 'dns') throw new Error('chaos: --address must be vip or dns');
  if (pooler && flags.has('address'))
    throw new Error('chaos: --address is for the proxy; with --pooler, PgBouncer is the address');
  if (flags.get('failover') !== undefined && flags.get('failover') !== true)
    throw new Error('chaos: --failover takes no value (--no-failover turns it off)');
  if (flags.has('failover') && flags.has('no-failover'))
    throw new Error('chaos: give --failover or --no-failover, not both');
  const profile = PROFILES[profileName];
  const leaseMs = profile.leaseMs;
  const messages = positiveInteger(flags.get('messages'), profile.messages, 'messages');
  if (flags.has('rate') && flags.has('produce-seconds'))
    throw new Error('chaos: give --rate or --produce-seconds, not both');
  // The feed rate (messages per second over all paths) sets how long production lasts.
  const rate = flags.has('rate') ? positiveInteger(flags.get('rate'), 1, 'rate') : undefined;
  const produceSeconds = rate
    ? Math.max(1, Math.ceil(messages / rate))
    : positiveInteger(flags.get('produce-seconds'), profile.produceSeconds, 'produce-seconds');
  const stopMs = leaseMs + 1_500;
  // Above a SIGSTOP: a statement may wait that long, legitimately, for a row lock the paused
  // replica holds (the same idempotency key sent to two replicas). Below a network cut: there,
  // the deadline is what ends a statement.
  const statementTimeoutMs = stopMs + 500;
  return {
    profile: profileName,
    url: process.env.QUEUEBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    messages,
    replicas: positiveInteger(flags.get('replicas'), profile.replicas, 'replicas'),
    control,
    keepSchema: flags.get('keep-schema') === true,
    externalDatabase: flags.get('external-database') === true,
    pooler,
    address,
    failover: flags.has('failover') || (profile.failover && !flags.has('no-failover')),
    drainMs: { min: 1_000, max: 3_000 },
    readOnlyMs: { min: 2_000, max: 5_000 },
    leaseMs,
    produceSeconds,
    faultEveryMs: profile.faultEveryMs,
    databaseFaultEveryMs: profile.databaseFaultEveryMs,
    faultWindowMs: Math.round(produceSeconds * 1000 * profile.faultWindowFactor),
    cutMs: { min: statementTimeoutMs + 1_000, max: statementTimeoutMs + 3_000 },
    restartDownMs: { min: 1_000, max: 5_000 },
    statementTimeoutMs,
    // A live loop ticks every poll interval (250 ms) when idle; after failed ticks it backs off up
    // to 30 s (PollLoop's cap), and a tick may wait a statement's deadline or two.
    stallMs: 30_000 + statementTimeoutMs * 2 + 5_000,
    stopMs,
    drainTimeoutMs: profile.drainTimeoutMs,
    intakeShare: flags.has('intake-percent') ? percent(flags.get('intake-percent')) : 0.4,
    rollbackRate: 0.1,
    duplicateRate: 0.2,
    sinkFailRate: 0.1,
    sinkDelayRate: 0.05,
    sinkLongDelayRate: 0.01,
  };
}

function percent(value: string | true | undefined): number {
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 99)
    throw new Error('chaos: --intake-percent must be an integer from 1 to 99');
  return n / 100;
}

function positiveInteger(value: string | true | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1) throw new Error(`chaos: --${name} must be a positive integer`);
  return n;
}
