import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

/** One `[databases]` entry: what a client's database name leads to. */
export interface PgBouncerTarget {
  host: string;
  port: number;
  /** The server's database name. */
  dbname: string;
  /** This entry's own pool mode (`session` next to a transaction-mode default, say). */
  poolMode?: PgBouncerPoolMode;
}

export type PgBouncerPoolMode = 'session' | 'transaction' | 'statement';

export interface PgBouncerOptions {
  /** Client-side database name → server. */
  databases: Record<string, PgBouncerTarget>;
  /** Default: `transaction`, what most deployments run. */
  poolMode?: PgBouncerPoolMode;
  /**
   * The `postgres` user's password on the servers, when they ask for one (an embedded
   * PostgreSQL does): PgBouncer logs in to them with it. Its own clients are trusted.
   */
  password?: string;
  /** Default: a free loopback port. */
  port?: number;
  /** Server connections per database and user (default 20). */
  defaultPoolSize?: number;
  /** Client connections in all (default 500). */
  maxClientConn?: number;
  /**
   * How long PgBouncer waits after a failed connection to the server before it tries again, in
   * seconds; meanwhile every client of that database gets an error at once. PgBouncer's own default
   * is 15 s, which holds every client that long after a server restart or a failover (default 1 here).
   */
  serverLoginRetrySeconds?: number;
  /**
   * `server_round_robin`: hand out the idle server connection released first (FIFO) instead of
   * the one released last (LIFO, PgBouncer's default). Default false.
   */
  roundRobin?: boolean;
  /** The `pgbouncer` program (default: `PGBOUNCER_BIN`, else `pgbouncer` on the PATH, else /usr/sbin/pgbouncer). */
  program?: string;
  /** Longest wait for it to accept connections (default 30 s). */
  readyTimeoutMs?: number;
}

type LauncherSettings = Required<Omit<PgBouncerOptions, 'program' | 'readyTimeoutMs' | 'password'>>;

/** The only user it knows (trust, loopback): the server's `postgres`. */
const USER = 'postgres';
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A PgBouncer of a test's or a chaos run's own (Debian's 1.18 on this kind of machine): loopback
 * only, trust authentication, its configuration, log and pid file in a temporary folder, run as
 * the `postgres` user when started by root (it refuses root). `start` returns once its admin
 * console answers; `retarget` rewrites `[databases]` and reloads it, as an operator does to follow
 * a new primary (server connections to the old target are closed once their client lets them
 * go); `stop` ends it and removes the folder.
 *
 *   const bouncer = await PgBouncer.start({ databases: { test: { host: '127.0.0.1', port: 5432, dbname: 'test' } } });
 *   new pg.Client({ connectionString: bouncer.url('test') });
 */
export class PgBouncer {
  private stopped?: Promise<void>;
  private readonly killAtExit = (): void => {
    this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  };

  private constructor(
    private readonly options: LauncherSettings,
    private readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  /** Starts PgBouncer and waits until it answers on its port (never a fixed sleep). */
  static async start(options: PgBouncerOptions): Promise<PgBouncer> {
    for (const name of Object.keys(options.databases)) checkName(name);
    const resolved = {
      databases: options.databases,
      poolMode: options.poolMode ?? 'transaction',
      port: options.port ?? (await freePort()),
      defaultPoolSize: options.defaultPoolSize ?? 20,
      maxClientConn: options.maxClientConn ?? 500,
      serverLoginRetrySeconds: options.serverLoginRetrySeconds ?? 1,
      roundRobin: options.roundRobin ?? false,
    };
    const dir = mkdtempSync(join(tmpdir(), 'queuebox-pgbouncer-'));
    const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
    if (owner) chownSync(dir, owner.uid, owner.gid);
    // PgBouncer's auth file: the password it logs in to the servers with (its clients are trusted).
    writeFileSync(join(dir, 'users.txt'), `"${USER}" "${(options.password ?? '').replace(/"/g, '""')}"\n`, {
      mode: 0o600,
    });
    if (owner) chownSync(join(dir, 'users.txt'), owner.uid, owner.gid);
    writeFileSync(join(dir, 'pgbouncer.ini'), configText(resolved, dir));
    // In the foreground, as a child of this process: its exit is seen, and `stop` signals this very process.
    const child = spawn(options.program ?? pgbouncerProgram(), [join(dir, 'pgbouncer.ini')], {
      stdio: 'ignore',
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    const bouncer = new PgBouncer(resolved, dir, child);
    // A test that hangs and is given up, or a coordinator that fails, must not leave it running.
    process.once('exit', bouncer.killAtExit);
    try {
      await bouncer.waitReady(options.readyTimeoutMs ?? 30_000);
    } catch (error) {
      await bouncer.stop();
      throw error;
    }
    return bouncer;
  }

  get port(): number {
    return this.options.port;
  }

  /** The PgBouncer log (for a failed test's report). */
  get logFile(): string {
    return join(this.dir, 'pgbouncer.log');
  }

  /** A connection string to `database` through PgBouncer. */
  url(database: string): string {
    return `postgres://${USER}@127.0.0.1:${this.port}/${checkName(database)}`;
  }

  /**
   * Points the entries named in `databases` at new servers (others are kept), reloads, and
   * returns once PgBouncer reports the new targets (`SHOW DATABASES`). New server connections go
   * to the new targets; a server connection to an old target is closed when its client releases
   * it (after the transaction in transaction mode).
   */
  async retarget(databases: Record<string, PgBouncerTarget>): Promise<void> {
    for (const name of Object.keys(databases)) checkName(name);
    Object.assign(this.options.databases, databases);
    writeFileSync(join(this.dir, 'pgbouncer.ini'), configText(this.options, this.dir));
    await this.admin('RELOAD');
    const shown = await this.admin<{ name: string; host: string; port: number; database: string }>('SHOW DATABASES');
    for (const [name, target] of Object.entries(databases)) {
      const row = shown.find((r) => r.name === name);
      if (!row || row.host !== target.host || Number(row.port) !== target.port || row.database !== target.dbname) {
        throw new Error(
          `pgbouncer: ${name} still points at ${row ? `${row.host}:${row.port}/${row.database}` : 'nothing'} after RELOAD`,
        );
      }
    }
  }

  /** Runs one command on the admin console (simple protocol: `SHOW POOLS`, `RELOAD`, `PAUSE`…). */
  async admin<Row extends pg.QueryResultRow = pg.QueryResultRow>(command: string): Promise<Row[]> {
    const client = new pg.Client({ connectionString: `postgres://${USER}@127.0.0.1:${this.port}/pgbouncer` });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<Row>(command)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Ends PgBouncer at once (SIGTERM; SIGKILL after 5 s: SIGINT would wait for every client to leave) and removes its folder. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      process.off('exit', this.killAtExit);
      const child = this.child;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(this.dir, { recursive: true, force: true });
    })();
    return this.stopped;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let exited = false;
    this.child.once('exit', () => (exited = true));
    this.child.once('error', () => (exited = true));
    for (;;) {
      try {
        await this.admin('SHOW VERSION');
        return;
      } catch (error) {
        if (exited || performance.now() > deadline) {
          const log = existsSync(this.logFile)
            ? readFileSync(this.logFile, 'utf8').split('\n').slice(-5).join('\n')
            : '(no log)';
          throw new Error(`pgbouncer did not start on port ${this.port}: ${String(error)}\n${log}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}

function configText(options: LauncherSettings, dir: string): string {
  const databases = Object.entries(options.databases).map(
    ([name, t]) =>
      `${name} = host=${t.host} port=${t.port} dbname=${checkName(t.dbname)}${t.poolMode ? ` pool_mode=${t.poolMode}` : ''}`,
  );
  return [
    '[databases]',
    ...databases,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${options.port}`,
    // No Unix socket: a second instance on the machine would fight over its path.
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    `admin_users = ${USER}`,
    `pool_mode = ${options.poolMode}`,
    `default_pool_size = ${options.defaultPoolSize}`,
    `max_client_conn = ${options.maxClientConn}`,
    `server_login_retry = ${options.serverLoginRetrySeconds}`,
    `server_round_robin = ${options.roundRobin ? 1 : 0}`,
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    // node-postgres and TypeORM send these at start-up; PgBouncer refuses unknown ones. (It keeps
    // application_name itself, per client: sessions stay findable by their replica's name.)
    'ignore_startup_parameters = extra_float_digits,statement_timeout',
    '',
  ].join('\n');
}

function checkName(name: string): string {
  if (!DATABASE_NAME.test(name)) throw new Error(`pgbouncer: invalid database name ${JSON.stringify(name)}`);
  return name;
}

function pgbouncerProgram(): string {
  if (process.env.PGBOUNCER_BIN) return process.env.PGBOUNCER_BIN;
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  return '/usr/sbin/pgbouncer';
}

/** Whether the `pgbouncer` program is installed (a test skips, a chaos run refuses, without it). */
export function pgbouncerInstalled(): boolean {
  return existsSync(pgbouncerProgram());
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
