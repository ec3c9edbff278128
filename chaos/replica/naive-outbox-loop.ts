import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import pg from 'pg';
import { chaosTables } from '../sql/chaos-names.js';
import {
  claimHeads,
  claimNewest,
  markSentFenced,
  markSentUnfenced,
  reclaimExpired,
  retryFenced,
  retryUnfenced,
} from '../sql/naive-outbox.sql.js';
import { REPLICA_CONFIG, replicaApplicationName, type ReplicaConfig } from './replica-config.js';

interface ClaimedRow {
  id: string;
  claim_token: string;
  message_id: string;
  destination: string;
  ordering_key: string | null;
  payload: string;
}

/**
 * A negative control: the outbox loop every replica of a control run runs instead of QueueBox's
 * workers (with a reclaim step like QueueBox's, so that a killed replica's rows come back), with
 * one defect each. `no-fence` claims like QueueBox but marks rows sent or pending by id alone
 * (no token, no lease check, no renewal); `no-order` is fenced (and gives up a publish before its
 * lease ends) but claims the newest rows whatever their key and publishes a batch at once. The
 * suite must fail on each.
 */
@Injectable()
export class NaiveOutboxLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChaosNaiveOutbox');
  private readonly stopping = new AbortController();
  private readonly pool: pg.Pool;
  private running?: Promise<void>;
  private claimed = 0;

  constructor(@Inject(REPLICA_CONFIG) private readonly config: ReplicaConfig) {
    this.pool = new pg.Pool({
      connectionString: config.url,
      max: 2,
      application_name: replicaApplicationName(config.slot),
    });
    this.pool.on('error', () => undefined);
  }

  onApplicationBootstrap(): void {
    this.running = this.loop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.pool.end();
    this.logger.log(`naive outbox loop (${this.config.control}): ${this.claimed} rows claimed`);
  }

  private async loop(): Promise<void> {
    const t = chaosTables(this.config.schema);
    const fenced = this.config.control === 'no-order';
    const claim = fenced ? claimNewest(t) : claimHeads(t);
    let reclaimedAt = 0;
    while (!this.stopping.signal.aborted) {
      try {
        if (performance.now() - reclaimedAt >= this.config.leaseMs / 5) {
          reclaimedAt = performance.now();
          await this.pool.query(reclaimExpired(t));
        }
        const { rows } = await this.pool.query<ClaimedRow>(claim, [50, this.config.leaseMs]);
        this.claimed += rows.length;
        if (rows.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const finish = async (row: ClaimedRow): Promise<void> => {
          const ok = await this.publish(row, fenced);
          const sql = ok
            ? fenced
              ? markSentFenced(t)
              : markSentUnfenced(t)
            : fenced
              ? retryFenced(t)
              : retryUnfenced(t);
          await this.pool.query(sql, fenced ? [row.id, row.claim_token] : [row.id]);
        };
        // no-order publishes the batch at once (rows of one key overtake each other); no-fence works
        // through it one row at a time, as a simple loop would, so its last rows outlive their lease
        // behind a slow answer: without renewal and fence, those writes land late.
        if (fenced) await Promise.all(rows.map(finish));
        else for (const row of rows) await finish(row);
      } catch (error) {
        this.logger.warn(`naive outbox loop: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private async publish(row: ClaimedRow, fenced: boolean): Promise<boolean> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-message-id': row.message_id };
    if (row.ordering_key !== null) headers['x-queuebox-key'] = row.ordering_key;
    try {
      const response = await fetch(`${this.config.sinkUrl}/${row.destination}`, {
        method: 'POST',
        headers,
        body: row.payload,
        // The fenced control gives up before its lease ends (it does not renew); the unfenced one waits.
        signal: AbortSignal.timeout(fenced ? this.config.leaseMs / 2 : this.config.leaseMs * 3),
      });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }
}
