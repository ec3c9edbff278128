import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where the PostgreSQL server's programs are: `CHAOS_PG_BIN`, else Debian's PostgreSQL 15. */
export function postgresBinDir(): string | undefined {
  const candidates = [process.env.CHAOS_PG_BIN, '/usr/lib/postgresql/15/bin'].filter((dir): dir is string =>
    Boolean(dir),
  );
  return candidates.find((dir) => existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb')));
}

/**
 * What a server of an HA pair is right now (ha-pair.ts): a primary (synchronous when it has a
 * standby to wait for; `readOnly` while it is drained before a switchover), or a hot standby
 * streaming from the primary on `primaryPort`.
 */
export type ClusterRole =
  { primary: true; synchronous: boolean; readOnly?: boolean } | { primary: false; primaryPort: number };

/**
 * A PostgreSQL cluster of the chaos run's own, which the run may crash: initdb in a temporary
 * directory, on a free port, fsync on (crash recovery must find every committed transaction in
 * the WAL), trust authentication on loopback only. Run as root, its programs run as the
 * `postgres` user (initdb refuses root). `crash()` is `pg_ctl stop -m immediate`: every backend
 * is killed without a checkpoint, and the next `start()` runs crash recovery.
 *
 * It can also be one server of an HA pair (ha-pair.ts): a copy of another cluster
 * (`pg_basebackup`), rewound onto a promoted standby's timeline (`pg_rewind`), started as a hot
 * standby, promoted. Both tools copy the source's configuration files, so everything that
 * belongs to one server (its port, its role) lives in `postgresql.auto.conf`, which `configure`
 * writes whole before every start and on every change of role.
 */
export class PrivateCluster {
  readonly dataDir: string;
  private readonly asPostgres: boolean;
  private role: ClusterRole = { primary: true, synchronous: false };

  constructor(
    private readonly binDir: string,
    readonly port: number,
    /** The name its standby connection reports (`application_name` in the primary's `pg_stat_replication`). */
    readonly name = 'chaos',
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'queuebox-chaos-pg-'));
    this.asPostgres = process.getuid?.() === 0;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Beside the data directory, not in it: `pg_basebackup` and `pg_rewind` copy a data directory whole. */
  get logFile(): string {
    return `${this.dataDir}.log`;
  }

  get isPrimary(): boolean {
    return this.role.primary;
  }

  async init(): Promise<void> {
    await this.ownDataDir();
    await this.pg('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
    appendFileSync(
      join(this.dataDir, 'postgresql.conf'),
      [
        `listen_addresses = '127.0.0.1'`,
        // Durability is what a crash tests: never trade it for speed here.
        'fsync = on',
        'synchronous_commit = on',
        'full_page_writes = on',
        'max_connections = 300',
        'shared_buffers = 128MB',
        // For a standby of it: hot standby, and a rewind of a former primary (hint bits in the WAL,
        // and enough WAL kept to rewind it or let it catch up after a failover).
        'hot_standby = on',
        'wal_log_hints = on',
        `wal_keep_size = '1GB'`,
        // A standby whose primary restarted connects again within this, not the default 5 s.
        'wal_retrieve_retry_interval = 250ms',
        '',
      ].join('\n'),
    );
    this.configure(this.role);
  }

  /** A copy of `source` (running), taken with `pg_basebackup`; `configure` and `start` it as a standby. */
  async copyOf(source: PrivateCluster): Promise<void> {
    await this.ownDataDir();
    await this.pg('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(source.port),
      '-U',
      'postgres',
      '-D',
      this.dataDir,
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
  }

  /**
   * Rewinds this stopped former primary onto `source`'s timeline (`pg_rewind`; after a crash it
   * runs crash recovery first). When the rewind fails, the data directory is copied anew, and
   * the rewind's last line of error is returned.
   */
  async rewindOnto(source: PrivateCluster): Promise<string | undefined> {
    try {
      await this.pg('pg_rewind', [
        '-D',
        this.dataDir,
        `--source-server=host=127.0.0.1 port=${source.port} user=postgres dbname=postgres`,
      ]);
      return undefined;
    } catch (error) {
      rmSync(this.dataDir, { recursive: true, force: true });
      await this.copyOf(source);
      return String((error as { stderr?: string }).stderr ?? error)
        .trim()
        .split('\n')
        .pop();
    }
  }

  /**
   * Writes this server's own settings (`postgresql.auto.conf`, and `standby.signal` for a
   * standby); a running server reads them on `reload()`. A primary with a standby waits for it at
   * every commit (`synchronous_standby_names`); one running alone does not, as pg_auto_failover's
   * `wait_primary` does, or every commit would wait until a standby comes back.
   */
  configure(role: ClusterRole): void {
    this.role = role;
    // No Unix socket: its lock file in the data directory would be copied to the other server.
    const lines = [`port = ${this.port}`, `unix_socket_directories = ''`];
    if (role.primary) {
      lines.push(`synchronous_standby_names = '${role.synchronous ? '*' : ''}'`);
      if (role.readOnly) lines.push('default_transaction_read_only = on');
    } else {
      lines.push(
        `primary_conninfo = 'host=127.0.0.1 port=${role.primaryPort} user=postgres application_name=${this.name}'`,
      );
    }
    writeFileSync(join(this.dataDir, 'postgresql.auto.conf'), `${lines.join('\n')}\n`);
    const signal = join(this.dataDir, 'standby.signal');
    if (role.primary) rmSync(signal, { force: true });
    else writeFileSync(signal, '');
  }

  /** Starts the server and waits until it accepts connections (after crash recovery, if any; a standby once it is consistent). */
  async start(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-w', '-t', '300', 'start']);
  }

  /** `pg_ctl stop -m immediate`: the postmaster kills every backend at once; no shutdown checkpoint. */
  async crash(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']);
  }

  /** `pg_ctl stop -m fast`: every session is terminated, a standby is sent the last of the WAL, then a shutdown checkpoint. */
  async stop(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  }

  /** Ends a standby's recovery (`pg_ctl promote`), then checkpoints, so that `pg_rewind` can read the new timeline from its control file. */
  async promote(role: ClusterRole & { primary: true }): Promise<void> {
    // A standby's settings name no synchronous standby: it takes writes alone from the moment it is promoted.
    await this.pg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '120', 'promote']);
    await this.reload(role);
    await this.query('CHECKPOINT');
  }

  /** Rewrites this server's settings for `role` and reloads them (connections stay open). */
  async reload(role: ClusterRole): Promise<void> {
    this.configure(role);
    await this.query('SELECT pg_reload_conf()');
  }

  /** One statement on a connection of its own, as the `postgres` superuser. */
  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'chaos-ha' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Stops the server (fast) and deletes its directory. */
  async destroy(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']).catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
    rmSync(this.logFile, { force: true });
  }

  /** An empty data directory the server's user owns (initdb and pg_basebackup refuse any other). */
  private async ownDataDir(): Promise<void> {
    // PostgreSQL refuses a data directory others may read.
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    if (!this.asPostgres) return;
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gidText } = await run('id', ['-g', 'postgres']);
    chownSync(this.dataDir, Number(stdout.trim()), Number(gidText.trim()));
  }

  private async pg(program: string, args: string[]): Promise<void> {
    const path = join(this.binDir, program);
    if (this.asPostgres) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
