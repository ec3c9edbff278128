import type { ChaosControl, ChaosPooler } from '../chaos-config.js';

/** What the coordinator tells one replica process (as JSON in `CHAOS_REPLICA`). */
export interface ReplicaConfig {
  slot: number;
  /** The database as the replica sees it: through the coordinator's network-cut proxy. */
  url: string;
  schema: string;
  /** The replica's HTTP port: the intake is `POST /inbox/:source`. */
  port: number;
  /** The sink's base URL; the destinations are `<sinkUrl>/direct` and `<sinkUrl>/relayed`. */
  sinkUrl: string;
  leaseMs: number;
  /** QueueBox's `statementTimeoutMs`: shorter than a network cut. */
  statementTimeoutMs: number;
  /** The intake sources' secrets (`whsec_…`). */
  secrets: { feed: string; jobs: string };
  /** The producer lanes this replica runs: each owns its keys, and enqueues one transaction at a time. */
  lanes: number[];
  perLane: number;
  keysPerLane: number;
  rollbackRate: number;
  /** Pace of each lane, so that production spreads over the run. */
  messagesPerSecondPerLane: number;
  /** In a control run, every replica runs a naive outbox loop instead of QueueBox's workers. */
  control?: ChaosControl;
  /** `url` leads to this pooler (transaction mode) rather than to PostgreSQL itself. */
  pooler?: ChaosPooler;
  /**
   * Behind the pooler: the same database through the pooler in session mode, QueueBox's
   * `notify.listenUrl` (a LISTEN does not last on a connection pooled per transaction).
   */
  listenUrl?: string;
}

export const REPLICA_CONFIG = Symbol('REPLICA_CONFIG');

/** The name of a replica's database sessions: the coordinator terminates them by it. */
export const replicaApplicationName = (slot: number): string => `chaos-replica-${slot}`;

export function readReplicaConfig(): ReplicaConfig {
  const text = process.env.CHAOS_REPLICA;
  if (!text) throw new Error('chaos replica: CHAOS_REPLICA is not set (the coordinator starts replicas)');
  return JSON.parse(text) as ReplicaConfig;
}
