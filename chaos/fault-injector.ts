import type pg from 'pg';
import type { ChaosConfig } from './chaos-config.js';
import { replicaApplicationName } from './replica/replica-config.js';
import type { ReplicaFleet } from './replica-fleet.js';
import { terminateReplicaSessions } from './sql/faults.sql.js';

const KINDS = ['stop', 'kill', 'terminate'] as const;
type FaultKind = (typeof KINDS)[number];

/**
 * Injects one fault every `faultEveryMs` (jittered ±50 %), in turn: SIGSTOP past the lease (then
 * SIGCONT), SIGKILL (the fleet restarts the replica), `pg_terminate_backend` of every database
 * session of a replica. Each kind walks the replicas in turn from replica 0, so every replica
 * gets every kind.
 */
export class FaultInjector {
  kills = 0;
  stops = 0;
  terminations = 0;
  terminatedBackends = 0;
  private readonly resumes: Promise<void>[] = [];

  constructor(
    private readonly config: ChaosConfig,
    private readonly fleet: ReplicaFleet,
    private readonly pool: pg.Pool,
  ) {}

  get total(): number {
    return this.kills + this.stops + this.terminations;
  }

  /** Injects faults until `done()` says so; returns once every paused replica is resumed. */
  async run(done: () => boolean): Promise<void> {
    const turns: Record<FaultKind, number> = { stop: 0, kill: 0, terminate: 0 };
    for (let n = 0; !done(); n += 1) {
      await new Promise((resolve) => setTimeout(resolve, this.config.faultEveryMs * (0.5 + Math.random())));
      if (done()) break;
      const kind = KINDS[n % KINDS.length];
      const slot = this.nextRunning(turns[kind]);
      if (slot === undefined) continue;
      turns[kind] = slot + 1;
      await this.inject(kind, slot);
    }
    await Promise.all(this.resumes);
  }

  private nextRunning(from: number): number | undefined {
    for (let i = 0; i < this.fleet.size; i += 1) {
      const slot = (from + i) % this.fleet.size;
      if (this.fleet.isRunning(slot)) return slot;
    }
    return undefined;
  }

  private async inject(kind: FaultKind, slot: number): Promise<void> {
    if (kind === 'kill') {
      this.fleet.kill(slot);
      this.kills += 1;
    } else if (kind === 'stop') {
      this.fleet.pause(slot);
      this.stops += 1;
      this.resumes.push(new Promise((resolve) => setTimeout(resolve, this.config.stopMs)).then(() => this.fleet.resume(slot)));
    } else {
      const { rows } = await this.pool.query<{ n: number }>(terminateReplicaSessions, [replicaApplicationName(slot)]);
      this.terminations += 1;
      this.terminatedBackends += rows[0].n;
    }
  }
}
