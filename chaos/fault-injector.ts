import type { ChaosConfig } from './chaos-config.js';
import type { HaPair } from './ha-pair.js';
import type { Queryable } from './primary-pool.js';
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
 * The two forms of a failover. `crash`: the primary dies (`-m immediate`), the standby is
 * promoted and the address moves to it at once. `stale`: the primary is drained read-only with
 * its sessions open, then stopped, the standby promoted, and the former primary comes back as a
 * hot standby while the address still leads to it; the address moves a few seconds later.
 */
export type FailoverForm = 'crash' | 'stale';

/** One failover of the HA pair. */
export interface Failover {
  form: FailoverForm;
  /** When the replicas' address moved to the new primary (database clock): the recovery counts from here. */
  movedAt: Date;
  /** From the first step (crash, or drain) until the address moved. */
  outageMs: number;
  /** How long of it the address led to a server that refused writes with 25006 (drained, then a hot standby). */
  readOnlyMs: number;
  /** Why `pg_rewind` failed, when the former primary had to be copied anew. */
  rewindFailed?: string;
}

/** The one address the replicas reach the database by, which a failover moves (the proxy, or PgBouncer's `[databases]`). */
export interface MovingAddress {
  retarget(host: string, port: number): Promise<void>;
}

/** The HA pair and what follows its primary: the replicas' address, and the coordinator's own connections. */
export interface HaControl {
  pair: HaPair;
  address: MovingAddress;
  /** The coordinator's connections follow the new primary (at once: they never go through the address). */
  followPrimary(url: string): void;
}

type DatabaseFaultKind = 'cut' | 'restart' | 'failover';

/**
 * Injects the faults. The replicas' faults come one every `faultEveryMs` (jittered ±50 %), in
 * turn: SIGSTOP past the lease (then SIGCONT), SIGKILL (the fleet restarts the replica),
 * `pg_terminate_backend` of every database session of a replica; each kind walks the replicas in
 * turn from replica 0, so every replica gets every kind. The database's faults run alongside,
 * one every `databaseFaultEveryMs`, in turn: a network cut (the proxy blackholes every
 * connection past the lease, then resumes or resets them at random), on a private cluster a
 * crash-restart of the primary (`pg_ctl stop -m immediate`, 1–5 s down, start with crash
 * recovery), and on an HA pair a failover every other time, its two forms in turn.
 */
export class FaultInjector {
  kills = 0;
  stops = 0;
  terminations = 0;
  terminatedBackends = 0;
  cuts = 0;
  resets = 0;
  readonly restarts: Restart[] = [];
  readonly failovers: Failover[] = [];
  private readonly resumes: Promise<void>[] = [];

  constructor(
    private readonly config: ChaosConfig,
    private readonly fleet: ReplicaFleet,
    private readonly pool: Queryable,
    private readonly proxy: ProxyClient,
    /** The single private cluster (crash-restarts), when the run has one. */
    private readonly cluster: PrivateCluster | undefined,
    private readonly progress: (line: string) => void,
    /** The HA pair (crash-restarts of its primary, failovers), when the run has one. */
    private readonly ha?: HaControl,
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

  /** Goes on past `done()` until each kind of database fault (and both forms of failover) happened once: a short run tests them all. */
  private async runDatabaseFaults(done: () => boolean): Promise<void> {
    const kinds: DatabaseFaultKind[] = this.ha
      ? ['failover', 'cut', 'failover', 'restart']
      : this.cluster
        ? ['cut', 'restart']
        : ['cut'];
    const happened = (form: FailoverForm): boolean => this.failovers.some((failover) => failover.form === form);
    const allHappened = (): boolean =>
      this.cuts > 0 &&
      (!kinds.includes('restart') || this.restarts.length > 0) &&
      (!this.ha || (happened('crash') && happened('stale')));
    for (let n = 0; !done() || !allHappened(); n += 1) {
      await sleep(this.config.databaseFaultEveryMs * (0.5 + Math.random()));
      if (done() && allHappened()) break;
      const kind = kinds[n % kinds.length];
      if (kind === 'cut') await this.cut();
      else if (kind === 'restart') await this.restart(this.ha?.pair.primary ?? this.cluster!);
      else await this.failover(this.ha!, this.failovers.length % 2 === 0 ? 'crash' : 'stale');
    }
  }

  /**
   * Swaps the pair's roles. The standby streams (caught up) before anything happens: with
   * synchronous replication it then has every commit a client saw. The address moves last: in
   * the `crash` form at once, in the `stale` form after `readOnlyMs` of the former primary
   * answering as a hot standby; the coordinator's own connections follow the promoted primary at
   * once. The former primary is rewound and streams again before the next fault.
   */
  private async failover(ha: HaControl, form: FailoverForm): Promise<void> {
    const { pair, address } = ha;
    await pair.waitStreaming();
    const startedAt = performance.now();
    // While the address leads to a server that refuses writes: drained, then a hot standby.
    let readOnlyMs = 0;
    let standbyUpAt: number | undefined;
    let rewindFailed: string | undefined;
    if (form === 'crash') {
      await pair.crashPrimary();
      await pair.promoteStandby();
      ha.followPrimary(pair.primary.url);
    } else {
      await pair.drainPrimary();
      readOnlyMs = between(this.config.drainMs);
      await sleep(readOnlyMs);
      await pair.stopPrimary();
      await pair.promoteStandby();
      ha.followPrimary(pair.primary.url);
      rewindFailed = await pair.rejoinFormerPrimary();
      standbyUpAt = performance.now();
      await sleep(between(this.config.readOnlyMs));
    }
    await address.retarget('127.0.0.1', pair.primary.port);
    const movedAt = performance.now();
    if (standbyUpAt !== undefined) readOnlyMs += movedAt - standbyUpAt;
    const failover: Failover = {
      form,
      movedAt: await this.databaseNow(),
      outageMs: Math.round(movedAt - startedAt),
      readOnlyMs: Math.round(readOnlyMs),
    };
    if (form === 'crash') rewindFailed = await pair.rejoinFormerPrimary();
    if (rewindFailed) failover.rewindFailed = rewindFailed;
    this.failovers.push(failover);
    this.progress(
      `failover ${this.failovers.length} (${form}): ${pair.primary.name} is the primary; the address moved ${failover.outageMs} ms after the first step` +
        `${form === 'stale' ? ` (${failover.readOnlyMs} ms of it to a read-only server)` : ''}${rewindFailed ? `; pg_rewind failed (${rewindFailed}), copied anew` : ''}`,
    );
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

function between(range: { min: number; max: number }): number {
  return range.min + Math.random() * (range.max - range.min);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
