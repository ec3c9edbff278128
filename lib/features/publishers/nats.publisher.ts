import { Logger } from '@nestjs/common';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { PublishFailedError } from '../../shared/errors/publish-failed.error.js';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { PublishContext } from '../../shared/interfaces/outbox-publisher.interface.js';
import type { ResolvedDestination } from '../../config/options/resolved-options.interface.js';
import { MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER } from '../../shared/queuebox.constants.js';
import { headerNotPublished, natsNoStream } from '../../shared/queuebox.messages.js';
import { refusedDestinationHeader } from '../../config/options/destination-headers.js';
import { awaitWithin, WaitEndedError } from './await-within.js';
import { describeBrokerUrl, scrubCredentials } from './broker-address.js';
import type { ClosablePublisher } from './closable-publisher.interface.js';

/** `@nats-io/transport-node` and `@nats-io/jetstream`, optional peers loaded at start-up. */
export type NatsClient = [typeof import('@nats-io/transport-node'), typeof import('@nats-io/jetstream')];
type NatsDestination = Extract<ResolvedDestination, { type: 'nats' }>;
interface NatsLink {
  connection: NatsConnection;
  js: JetStreamClient;
}

/**
 * Publishes to JetStream with the message id as `Nats-Msg-Id`, so that the stream's duplicate
 * window drops a re-publish, and resolves on the stream's acknowledgement. Every failure is
 * retryable. One connection per destination: opened on first use, opened again after it closed
 * for good (the client itself reconnects in between), drained at application shutdown.
 */
export class NatsPublisher implements ClosablePublisher {
  private readonly logger = new Logger(NatsPublisher.name);
  private link?: NatsLink;
  private opening?: Promise<NatsLink>;
  private closed = false;

  constructor(
    private readonly destination: NatsDestination,
    private readonly client: NatsClient,
  ) {}

  async publish(message: OutboxMessage, { signal }: PublishContext): Promise<void> {
    // A `Nats-*` header would instruct the stream (a rollup purges the subject): never published.
    const refused = refusedDestinationHeader(this.destination, message.headers);
    if (refused)
      throw new PublishFailedError(headerNotPublished(refused.name, this.destination.name, refused.problem), {
        retryable: false,
      });
    const { subject, timeoutMs } = this.destination;
    let link: NatsLink;
    try {
      link = await awaitWithin(this.connect(), signal, timeoutMs);
    } catch (error) {
      throw this.failure(`cannot connect to ${this.address()}: ${this.describe(error)}`, error);
    }
    const [transport] = this.client;
    try {
      const headers = transport.headers();
      for (const [name, value] of Object.entries(message.headers)) headers.set(name, value);
      headers.set(MESSAGE_ID_HEADER, message.messageId);
      if (message.key !== null) headers.set(MESSAGE_KEY_HEADER, message.key);
      // JetStream's own timeout bounds the wait for the acknowledgement; the signal ends it early.
      await awaitWithin(
        link.js.publish(subject, message.payload, { msgID: message.messageId, headers, timeout: timeoutMs }),
        signal,
      );
    } catch (error) {
      if (isNoResponders(error))
        throw new PublishFailedError(natsNoStream(this.destination.name, subject), { retryable: true, cause: error });
      throw this.failure(`publish to subject "${subject}" was not acknowledged: ${this.describe(error)}`, error);
    }
  }

  /** Drains the connection (flushes what it buffered) and closes it; waits for an attempt in flight first. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    const connection = this.link?.connection;
    this.link = undefined;
    if (!connection || connection.isClosed()) return;
    let timer: NodeJS.Timeout | undefined;
    const drained = connection.drain().then(
      () => true,
      () => false,
    );
    const inTime = await Promise.race([
      drained,
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.destination.timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!inTime) await connection.close().catch(() => undefined);
  }

  private connect(): Promise<NatsLink> {
    if (this.closed) return Promise.reject(new Error('the connection was closed at shutdown'));
    if (this.link) return Promise.resolve(this.link);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<NatsLink> {
    const [transport, jetstream] = this.client;
    const connection = await transport.connect({
      servers: this.destination.servers,
      timeout: this.destination.timeoutMs,
      name: `queuebox:${this.destination.name}`,
    });
    const link: NatsLink = { connection, js: jetstream.jetstream(connection, { timeout: this.destination.timeoutMs }) };
    // The client reconnects by itself for a while; once it gives up, the next publish opens anew.
    void connection.closed().then((error) => {
      if (this.link === link) this.link = undefined;
      if (error && !this.closed) {
        this.logger.warn('NATS connection closed; it is reopened on the next publish', {
          destination: this.destination.name,
          address: this.address(),
          error: this.describe(error),
        });
      }
    });
    this.link = link;
    return link;
  }

  private failure(text: string, cause: unknown): PublishFailedError {
    return new PublishFailedError(`NATS destination "${this.destination.name}": ${text}`, { retryable: true, cause });
  }

  private address(): string {
    return this.destination.servers.map((server) => describeBrokerUrl(server)).join(', ');
  }

  private describe(error: unknown): string {
    if (error instanceof WaitEndedError) {
      return error.reason === 'aborted'
        ? 'aborted (claim lost or shutdown); the message may still be delivered'
        : `no answer within ${this.destination.timeoutMs} ms`;
    }
    const text =
      error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
    return scrubCredentials(text, this.destination.servers);
  }
}

/**
 * No subscriber answered the publish: no stream captures the subject (or JetStream is off).
 * The client reports it as `JetStreamNotEnabled` with a `NoRespondersError` cause, or as a
 * `RequestError` whose cause is one.
 */
function isNoResponders(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.name === 'NoResponders' || e.name === 'NoRespondersError' || e.name === 'JetStreamNotEnabled') return true;
  }
  return false;
}
