import { PrivateCluster } from './private-cluster.js';

/**
 * A primary and a synchronous hot standby of the chaos run's own, built from the PostgreSQL
 * server programs alone (streaming replication, `pg_ctl promote`, `pg_rewind`): what the
 * `failover` fault swaps, back and forth. The primary waits for the standby at every commit
 * (`synchronous_standby_names = '*'`, `synchronous_commit = on`), so a commit a client saw is on
 * the standby; a primary left alone by a failover runs without waiting until its former primary
 * has come back as its standby (pg_auto_failover's `wait_primary`), then waits again.
 *
 * The steps are separate, so that the fault injector can move the replicas' address between
 * them: `crashPrimary`/`stopPrimary`, `promoteStandby`, `rejoinFormerPrimary`.
 */
export class HaPair {
  private readonly nodes: [PrivateCluster, PrivateCluster];
  private primaryIndex = 0;

  constructor(binDir: string, ports: [number, number]) {
    this.nodes = [new PrivateCluster(binDir, ports[0], 'node0'), new PrivateCluster(binDir, ports[1], 'node1')];
  }

  get primary(): PrivateCluster {
    return this.nodes[this.primaryIndex];
  }

  get standby(): PrivateCluster {
    return this.nodes[1 - this.primaryIndex];
  }

  /** node0 as the primary, node1 copied from it and streaming as its synchronous standby. */
  async init(): Promise<void> {
    const [first, second] = this.nodes;
    await first.init();
    await first.start();
    await second.copyOf(first);
    await this.follow(second, first);
  }

  /** The primary dies at once (`pg_ctl stop -m immediate`): a failed machine. */
  async crashPrimary(): Promise<void> {
    await this.primary.crash();
  }

  /**
   * The primary stops taking writes where it stands: its sessions stay open, and every write on
   * them fails with 25006 (`default_transaction_read_only`, as a drained primary, or a node a
   * stale address still leads to). Nothing new commits there, so the standby has it all.
   */
  async drainPrimary(): Promise<void> {
    await this.primary.reload({ primary: true, synchronous: true, readOnly: true });
  }

  /** A clean stop of the primary (`-m fast`): its sessions end, its standby gets the last of its WAL. */
  async stopPrimary(): Promise<void> {
    await this.primary.stop();
  }

  /**
   * Promotes the standby, once the primary has stopped: it takes writes at once, alone (without
   * waiting for a standby), and becomes `primary`.
   */
  async promoteStandby(): Promise<void> {
    const next = this.standby;
    await next.promote({ primary: true, synchronous: false });
    this.primaryIndex = 1 - this.primaryIndex;
  }

  /**
   * The former primary (stopped) follows the new one: rewound onto its timeline (whatever it
   * wrote that the new primary never got is discarded: nothing a client saw committed, with
   * synchronous replication), started as a hot standby, which accepts read-only sessions; once it
   * streams, the new primary waits for it at every commit. Returns why, when `pg_rewind` failed
   * and the former primary was copied anew instead.
   */
  async rejoinFormerPrimary(): Promise<string | undefined> {
    const former = this.standby;
    const copied = await former.rewindOnto(this.primary);
    await this.follow(former, this.primary);
    return copied;
  }

  /** Waits until the standby streams from the primary, caught up (before a failover: nothing the primary has is missing there). */
  async waitStreaming(timeoutMs = 120_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const rows = await this.primary
        .query<{ state: string }>('SELECT state FROM pg_stat_replication WHERE application_name = $1', [
          this.standby.name,
        ])
        .catch(() => []);
      if (rows.some((row) => row.state === 'streaming')) return;
      if (performance.now() > deadline)
        throw new Error(
          `chaos: ${this.standby.name} does not stream from ${this.primary.name} (see ${this.standby.logFile})`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.destroy()));
  }

  private async follow(standby: PrivateCluster, primary: PrivateCluster): Promise<void> {
    standby.configure({ primary: false, primaryPort: primary.port });
    await standby.start();
    await this.waitStreaming();
    await primary.reload({ primary: true, synchronous: true });
  }
}
