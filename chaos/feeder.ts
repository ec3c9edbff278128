import { coveredHeadersText, decodeWebhookSecret, webhookSignatures } from 'queuebox';
import type { ChaosConfig } from './chaos-config.js';
import type { Queryable } from './primary-pool.js';
import { insertFed } from './sql/business-tables.sql.js';
import type { ChaosTables } from './sql/chaos-names.js';

export interface FeederPlan {
  /** Intake lanes per source: each lane owns its keys and sends one message at a time. */
  lanesPerSource: number;
  perLane: number;
  keysPerLane: number;
  /** Replica HTTP ports, any of which may be down or paused right now. */
  ports: readonly number[];
  secrets: { feed: string; jobs: string };
}

interface Fed {
  id: string;
  source: string;
  lane: number;
  seq: number;
  key: string;
  posts: number;
  duplicateAnswers: number;
}

/**
 * The intake's sender: a Standard Webhooks sender (signed with QueueBox's exported helpers) that
 * posts to `POST /inbox/:source` of a random replica, retries another one until a 2xx, and sends
 * a share of its messages twice at once, to two replicas. Each key's next message waits for the
 * previous one's 2xx, as an ordered sender does. Every acknowledged message is recorded in
 * `chaos_fed`.
 */
export class Feeder {
  posts = 0;
  private readonly fed: Fed[] = [];

  constructor(
    private readonly config: ChaosConfig,
    private readonly plan: FeederPlan,
  ) {}

  get acknowledged(): number {
    return this.fed.length;
  }

  async run(): Promise<void> {
    const lanes = (['feed', 'jobs'] as const).flatMap((source, s) =>
      Array.from({ length: this.plan.lanesPerSource }, (_, i) =>
        this.runLane(source, s * this.plan.lanesPerSource + i),
      ),
    );
    await Promise.all(lanes);
  }

  async save(pool: Queryable, tables: ChaosTables): Promise<void> {
    const f = this.fed;
    await pool.query(insertFed(tables), [
      f.map((x) => x.id),
      f.map((x) => x.source),
      f.map((x) => x.lane),
      f.map((x) => x.seq),
      f.map((x) => x.key),
      f.map((x) => x.posts),
      f.map((x) => x.duplicateAnswers),
    ]);
  }

  private async runLane(source: 'feed' | 'jobs', lane: number): Promise<void> {
    const key = Buffer.from((decodeWebhookSecret(this.plan.secrets[source]) as { key: Buffer }).key);
    const started = performance.now();
    const perSecond = this.plan.perLane / this.config.produceSeconds;
    for (let seq = 0; seq < this.plan.perLane; seq += 1) {
      const orderingKey = `f${lane}-${Math.floor(Math.random() * this.plan.keysPerLane)}`;
      const id = `${source}${lane}-${seq}`;
      const body = JSON.stringify({ id, key: orderingKey, seq });
      const record: Fed = { id, source, lane, seq, key: orderingKey, posts: 0, duplicateAnswers: 0 };
      for (let attempt = 0; ; attempt += 1) {
        const copies = attempt === 0 && Math.random() < this.config.duplicateRate ? 2 : 1;
        const answers = await Promise.all(
          Array.from({ length: copies }, () => this.post(source, id, orderingKey, body, key, record)),
        );
        if (answers.some((status) => status === 200 || status === 202)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      this.fed.push(record);
      const due = ((seq + 1) / perSecond) * 1000 - (performance.now() - started);
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    }
  }

  /** One signed POST to a random replica; the status, or 0 when it failed or timed out. */
  private async post(
    source: string,
    id: string,
    orderingKey: string,
    body: string,
    secret: Buffer,
    record: Fed,
  ): Promise<number> {
    const port = this.plan.ports[Math.floor(Math.random() * this.plan.ports.length)];
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignatures([secret], id, timestamp, body),
      'x-queuebox-key': orderingKey,
    };
    headers['x-queuebox-signature'] = webhookSignatures([secret], id, timestamp, coveredHeadersText(headers));
    this.posts += 1;
    record.posts += 1;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/inbox/${source}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(1_000),
      });
      await response.arrayBuffer();
      if (response.status === 200) record.duplicateAnswers += 1;
      return response.status;
    } catch {
      return 0;
    }
  }
}
