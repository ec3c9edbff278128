import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChaosConfig } from './chaos-config.js';
import type { Queryable } from './primary-pool.js';
import { insertDeliveries } from './sql/business-tables.sql.js';
import type { ChaosTables } from './sql/chaos-names.js';

interface Delivery {
  arrival: number;
  path: string;
  messageId: string | null;
  businessId: string | null;
  key: string | null;
  status: number;
}

/**
 * The loopback HTTP sink the outbox publishes to (`POST /sink/direct`, `/sink/relayed`). Every
 * request gets an arrival number the moment its body has arrived, and is recorded with the answer
 * the sink chose: some are 503, some are delayed a little, a few are delayed past the lease. The
 * records are written to `chaos_deliveries` in batches (the coordinator, which runs the sink, is
 * never killed) and flushed before the checks.
 */
export class Sink {
  private server?: Server;
  private arrivals = 0;
  private buffer: Delivery[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly config: ChaosConfig,
    private readonly pool: Queryable,
    private readonly tables: ChaosTables,
  ) {}

  get received(): number {
    return this.arrivals;
  }

  /** Listens on a free loopback port; returns the base URL (`http://127.0.0.1:<port>/sink`). */
  async start(): Promise<string> {
    // A sender killed mid-request aborts its body: that request is dropped, never a crash of the sink.
    this.server = createServer(
      (request, response) => void this.handle(request, response).catch(() => response.destroy()),
    );
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.timer = setInterval(() => void this.flush(), 250);
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sink`;
  }

  /**
   * Writes what is buffered; resolves when everything received so far is in the table. A batch
   * the database refused (it is down: a crash-restart) goes back to the buffer for the next flush.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.buffer;
      this.buffer = [];
      if (batch.length === 0) return;
      try {
        await this.write(batch);
      } catch {
        this.buffer = [...batch, ...this.buffer];
      }
    });
    return this.flushing;
  }

  /** Flushes until the buffer is empty (the database may be coming back from a restart). */
  async flushAll(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      await this.flush();
      if (this.buffer.length === 0) return;
      if (attempt >= 600) throw new Error(`chaos: the sink could not record ${this.buffer.length} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async write(batch: Delivery[]): Promise<void> {
    await this.pool.query(insertDeliveries(this.tables), [
      batch.map((d) => d.arrival),
      batch.map((d) => d.path),
      batch.map((d) => d.messageId),
      batch.map((d) => d.businessId),
      batch.map((d) => d.key),
      batch.map((d) => d.status),
    ]);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const response of this.open) response.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await this.flushAll();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const arrival = (this.arrivals += 1);
    const path = (request.url ?? '').replace(/^\/sink\//, '');
    const status = Math.random() < this.config.sinkFailRate ? 503 : 200;
    this.buffer.push({
      arrival,
      path,
      messageId: header(request, 'x-message-id') ?? header(request, 'webhook-id'),
      businessId: businessIdOf(Buffer.concat(chunks).toString('utf8')),
      key: header(request, 'x-queuebox-key'),
      status,
    });
    const roll = Math.random();
    const delay =
      roll < this.config.sinkLongDelayRate
        ? Math.round(this.config.leaseMs * 1.3)
        : roll < this.config.sinkDelayRate
          ? 20 + Math.floor(Math.random() * 180)
          : 0;
    this.open.add(response);
    response.on('close', () => this.open.delete(response));
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(status === 200 ? '{"ok":true}' : '{"error":"chaos"}');
  }
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

function businessIdOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { id?: unknown };
    return typeof parsed.id === 'string' ? parsed.id : null;
  } catch {
    return null;
  }
}
