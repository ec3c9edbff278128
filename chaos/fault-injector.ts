import type pg from 'pg';
import type { ChaosConfig } from './chaos-config.js';
import type { ProxyClient } from './proxy-client.js';
import type { PrivateCluster } from './private-cluster.js';
import { replicaApplicationName } from './replica/replica-config.js';
import type { ReplicaFleet } from './replica-fleet.js';
import { terminateReplicaSessions } from './sql/faults.sql.js';

const REPLICA_KINDS = ['stop', 'kill', 'terminate'] as const;
type ReplicaFaultKind = (typeof REPLICA_KINDS)[number];

/** One crash-restart of the cluster: when the server accepted connections again (database clock), and how long it was down. */
export interface Restart {
  upAt: Date;
  downMs: number;
}

/**
 * Injects the faults. The replicas' faults come one every `faultEveryMs` (jittered ±50 %), in
 * turn: SIGSTOP past the lease (then SIGCONT), SIGKILL (the fleet restarts the replica),
 * `pg_terminate_backend` of every database session of a replica; each kind walks the replicas in
 * turn from replica 0, so every replica gets every kind. The database's faults run alongside,
 * one every `databaseFaultEveryMs`, alternating: a network cut (the proxy blackholes every
 * connection past the lease, then resumes or resets them at random) and, on a private cluster, a
 * crash-restart (`pg_ctl stop -m immediate`, 1–5 s down, start with crash recovery).
 */
export class FaultInjector {
  kills = 0;
  stops = 0;
  terminations = 0;
  terminatedBackends = 0;
  cuts = 0;
  resets = 0;
  readonly restarts: Restart[] = [];
  private readonly resumes: Promise<void>[] = [];

  constructor(
    private readonly config: ChaosConfig,
    private readonly fleet: ReplicaFleet,
    private readonly pool: pg.Pool,
    private readonly proxy: ProxyClient,
    private readonly cluster: PrivateCluster | undefined,
    private readonly progress: (line: string) => void,
  ) {}

  /** Injects faults until `done()` says so; returns once every paused replica is resumed and the database is up and reachable. */
  async run(done: () => boolean): Promise<void> {
    await Promise.all([this.runReplicaFaults(done), this.runDatabaseFaults(done)]);
    await Promise.all(this.resumes);
  }

  private async runReplicaFaults(done: () => boolean): Promise<void> {
    const turns: Record<ReplicaFaultKind, number> = { stop: 0, kill: 0, terminate: 0 };
    for (let n = 0; !done(); n += 1) {
      await sleep(this.config.faultEveryMs * (0.5 + Math.random()));
      if (done()) break;
      const kind = REPLICA_KINDS[n % REPLICA_KINDS.length];
      const slot = this.nextRunning(turns[kind]);
      if (slot === undefined) continue;
      turns[kind] = slot + 1;
      await this.inject(kind, slot);
    }
  }

  /** Goes on past `done()` until each kind of database fault happened once: a short run tests both. */
  private async runDatabaseFaults(done: () => boolean): Promise<void> {
    const bothHappened = (): boolean => this.cuts > 0 && (!this.cluster || this.restarts.length > 0);
    for (let n = 0; !done() || !bothHappened(); n += 1) {
      await sleep(this.config.databaseFaultEveryMs * (0.5 + Math.random()));
      if (done() && bothHappened()) break;
      if (this.cluster && n % 2 === 1) await this.restart(this.cluster);
      else await this.cut();
    }
  }

  /** Every connection through the proxy goes silent past the lease; then, at random, forwarding resumes or every connection is reset. */
  private async cut(): Promise<void> {
    const { min, max } = this.config.cutMs;
    await this.proxy.blackhole();
    this.cuts += 1;
    await sleep(min + Math.random() * (max - min));
    if (Math.random() < 0.5) await this.proxy.resume();
    else {
      await this.proxy.reset();
      this.resets += 1;
    }
  }

  private async restart(cluster: PrivateCluster): Promise<void> {
    const { min, max } = this.config.restartDownMs;
    const stoppedAt = performance.now();
    await cluster.crash();
    await sleep(min + Math.random() * (max - min));
    await cluster.start();
    const downMs = Math.round(performance.now() - stoppedAt);
    // The database's clock, as the audit's: the first fenced finish after it is the recovery.
    const upAt = await this.databaseNow();
    this.restarts.push({ upAt, downMs });
    this.progress(`crash-restart ${this.restarts.length}: down ${downMs} ms (crash recovery included)`);
  }

  private async databaseNow(): Promise<Date> {
    for (;;) {
      try {
        return (await this.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now;
      } catch {
        // The coordinator's pooled connections died with the server: the pool replaces them.
        await sleep(100);
      }
    }
  }

  private nextRunning(from: number): number | undefined {
    for (let i = 0; i < this.fleet.size; i += 1) {
      const slot = (from + i) % this.fleet.size;
      if (this.fleet.isRunning(slot)) return slot;
    }
    return undefined;
  }

  private async inject(kind: ReplicaFaultKind, slot: number): Promise<void> {
    if (kind === 'kill') {
      this.fleet.kill(slot);
      this.kills += 1;
    } else if (kind === 'stop') {
      this.fleet.pause(slot);
      this.stops += 1;
      this.resumes.push(sleep(this.config.stopMs).then(() => this.fleet.resume(slot)));
    } else {
      try {
        const { rows } = await this.pool.query<{ n: number }>(terminateReplicaSessions, [replicaApplicationName(slot)]);
        this.terminations += 1;
        this.terminatedBackends += rows[0].n;
      } catch {
        // The server is down (a crash-restart): nothing to terminate this time.
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
