import { Logger } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import { errorText } from '../runtime/error-text.js';
import type { SqlDialect } from '../dialects/sql-dialect.interface.js';

/** The part of a node-postgres client the listener uses. */
interface NotifyingClient {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(event: string): unknown;
}

const RECONNECT_DELAY_MS = 2_000;

/**
 * Holds one connection of the application's pool in LISTEN on QueueBox's channels and calls
 * `onNotify(channel)` for each notification another instance sent. Reconnects after a failure,
 * and then reports every channel once (a notification may have been missed meanwhile).
 */
export class NotificationListener {
  private readonly logger = new Logger(NotificationListener.name);
  private runner?: QueryRunner;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly dialect: SqlDialect,
    private readonly channels: readonly string[],
    /** Notifications whose payload is this id were sent by this instance: it already woke. */
    private readonly instanceId: string,
    private readonly onNotify: (channel: string) => void,
  ) {}

  async start(): Promise<void> {
    this.closed = false;
    try {
      await this.connect();
    } catch (error) {
      this.logger.warn({ message: 'LISTEN failed; relying on the poll interval until it reconnects', error: errorText(error) });
      this.scheduleReconnect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.dropConnection(true);
  }

  private async connect(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    this.runner = runner;
    const client = (await runner.connect()) as NotifyingClient;
    client.on('notification', (message) => {
      if (message.payload !== this.instanceId && this.channels.includes(message.channel)) this.onNotify(message.channel);
    });
    const lost = (error?: Error): void => {
      if (this.closed || this.runner !== runner) return;
      this.logger.warn({ message: 'LISTEN connection lost; reconnecting', error: error ? errorText(error) : 'ended' });
      void this.dropConnection(false).then(() => this.scheduleReconnect());
    };
    client.on('error', lost);
    client.on('end', lost);
    for (const channel of this.channels) {
      const statement = this.dialect.listen(channel);
      await runner.query(statement.sql, [...statement.params]);
    }
    // Anything committed while no one listened is picked up now.
    for (const channel of this.channels) this.onNotify(channel);
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.connect().catch((error) => {
        this.logger.warn({ message: 'LISTEN reconnect failed', error: errorText(error) });
        void this.dropConnection(false).then(() => this.scheduleReconnect());
      });
    }, RECONNECT_DELAY_MS);
    this.retryTimer.unref();
  }

  /**
   * Gives the connection back. A healthy one stops listening first, so that the pool hands out a
   * clean connection; a broken one was already released (as broken) by TypeORM's error handler.
   */
  private async dropConnection(healthy: boolean): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    if (!runner || runner.isReleased) return;
    const client = (runner as unknown as { databaseConnection?: NotifyingClient }).databaseConnection;
    if (healthy) await runner.query(this.dialect.unlistenAll().sql).catch(() => undefined);
    client?.removeAllListeners('notification');
    await runner.release().catch(() => undefined);
  }
}
