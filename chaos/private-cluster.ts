import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, appendFileSync, chownSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the PostgreSQL server's programs are: `CHAOS_PG_BIN`, else Debian's PostgreSQL 15. */
export function postgresBinDir(): string | undefined {
  const candidates = [process.env.CHAOS_PG_BIN, '/usr/lib/postgresql/15/bin'].filter((dir): dir is string => Boolean(dir));
  return candidates.find((dir) => existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb')));
}

/**
 * A PostgreSQL cluster of the chaos run's own, which the run may crash: initdb in a temporary
 * directory, on a free port, fsync on (crash recovery must find every committed transaction in
 * the WAL), trust authentication on loopback only. Run as root, its programs run as the
 * `postgres` user (initdb refuses root). `crash()` is `pg_ctl stop -m immediate`: every backend
 * is killed without a checkpoint, and the next `start()` runs crash recovery.
 */
export class PrivateCluster {
  private readonly dataDir: string;
  private readonly asPostgres: boolean;

  constructor(
    private readonly binDir: string,
    readonly port: number,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'queuebox-chaos-pg-'));
    this.asPostgres = process.getuid?.() === 0;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get logFile(): string {
    return join(this.dataDir, 'server.log');
  }

  async init(): Promise<void> {
    if (this.asPostgres) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const uid = Number(stdout.trim());
      const { stdout: gidText } = await run('id', ['-g', 'postgres']);
      chownSync(this.dataDir, uid, Number(gidText.trim()));
    }
    await this.pg('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
    appendFileSync(
      join(this.dataDir, 'postgresql.conf'),
      [
        `port = ${this.port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${this.dataDir}'`,
        // Durability is what a crash tests: never trade it for speed here.
        'fsync = on',
        'synchronous_commit = on',
        'full_page_writes = on',
        'max_connections = 300',
        'shared_buffers = 128MB',
        '',
      ].join('\n'),
    );
  }

  /** Starts the server and waits until it accepts connections (after crash recovery, if any). */
  async start(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-w', '-t', '300', 'start']);
  }

  /** `pg_ctl stop -m immediate`: the postmaster kills every backend at once; no shutdown checkpoint. */
  async crash(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']);
  }

  /** Stops the server (fast) and deletes its directory. */
  async destroy(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']).catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async pg(program: string, args: string[]): Promise<void> {
    const path = join(this.binDir, program);
    if (this.asPostgres) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
