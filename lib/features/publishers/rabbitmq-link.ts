import type { Logger } from '@nestjs/common';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { ResolvedDestination } from '../../config/options/resolved-options.interface.js';
import { describeBrokerUrl, scrubCredentials } from './broker-address.js';

/** `amqplib`, an optional peer loaded at start-up. */
export type AmqpClient = typeof import('amqplib');
export type RabbitMqDestination = Extract<ResolvedDestination, { type: 'rabbitmq' }>;

/** A confirm channel and, once the broker has closed it, the broker's reason. */
export interface OpenChannel {
  channel: ConfirmChannel;
  closeReason?: string;
}

/**
 * The one connection and confirm channel of a RabbitMQ destination. Opened on first use, one
 * attempt shared by concurrent publishes; reopened on the next use after the broker closes either
 * (a failed attempt is not retried here: the publish fails and the outbox backoff paces the next
 * try, so a down broker sees no reconnect storm); closed at application shutdown.
 */
export class RabbitMqLink {
  private connection?: ChannelModel;
  private current?: OpenChannel;
  private opening?: Promise<OpenChannel>;
  private closed = false;

  constructor(
    private readonly amqp: AmqpClient,
    private readonly destination: RabbitMqDestination,
    private readonly logger: Logger,
  ) {}

  /** Where the destination points, without credentials. */
  get address(): string {
    return describeBrokerUrl(this.destination.url);
  }

  channel(): Promise<OpenChannel> {
    if (this.closed) return Promise.reject(new Error('the connection was closed at shutdown'));
    if (this.current) return Promise.resolve(this.current);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Closes the connection (and its channel); waits for an attempt in flight first. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    const connection = this.connection;
    this.connection = undefined;
    this.current = undefined;
    if (connection) await settleWithin(connection.close(), this.destination.confirmTimeoutMs);
  }

  /** Error text of the client with the URL's credentials masked. */
  describe(error: unknown): string {
    return scrubCredentials(error instanceof Error ? error.message : String(error), [this.destination.url]);
  }

  private async open(): Promise<OpenChannel> {
    const connection = this.connection ?? (await this.connect());
    const channel = await connection.createConfirmChannel();
    const open: OpenChannel = { channel };
    // The broker closes a channel on a channel-level error (a missing exchange, say): keep its
    // reason for the publishes that the close fails. Without a listener the error would throw.
    channel.on('error', (error: Error) => {
      open.closeReason = this.describe(error);
    });
    channel.on('close', () => {
      if (this.current === open) this.current = undefined;
    });
    this.current = open;
    return open;
  }

  private async connect(): Promise<ChannelModel> {
    const connection = await this.amqp.connect(this.destination.url, {
      timeout: this.destination.confirmTimeoutMs,
      clientProperties: { connection_name: `queuebox:${this.destination.name}` },
    });
    connection.on('error', (error: Error) => {
      this.logger.warn('RabbitMQ connection failed; it is reopened on the next publish', {
        destination: this.destination.name,
        address: this.address,
        error: this.describe(error),
      });
    });
    connection.on('close', () => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      this.current = undefined;
    });
    connection.on('blocked', (reason: string) => {
      this.logger.warn('RabbitMQ blocked this connection; publishes wait for confirms until it unblocks', {
        destination: this.destination.name,
        reason,
      });
    });
    this.connection = connection;
    return connection;
  }
}

/** Waits for `work` at most `ms`, ignoring its failure: shutdown must not hang on a dead broker. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
