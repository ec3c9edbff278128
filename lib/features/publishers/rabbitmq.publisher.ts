import { Logger } from '@nestjs/common';
import { PublishFailedError } from '../../shared/errors/publish-failed.error.js';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { PublishContext } from '../../shared/interfaces/outbox-publisher.interface.js';
import { headerNotPublished } from '../../shared/queuebox.messages.js';
import { refusedDestinationHeader } from '../../config/options/destination-headers.js';
import { awaitWithin, WaitEndedError } from './await-within.js';
import type { ClosablePublisher } from './closable-publisher.interface.js';
import { type AmqpClient, type OpenChannel, RabbitMqLink, type RabbitMqDestination } from './rabbitmq-link.js';

/** AMQP header names: lower case, as AMQP headers are matched case-sensitively. */
const MESSAGE_ID_AMQP_HEADER = 'x-message-id';
const MESSAGE_KEY_AMQP_HEADER = 'x-queuebox-key';

/**
 * Publishes to a RabbitMQ exchange on a confirm channel and resolves only on the broker's ack.
 * A nack, a channel or connection closed before the ack, a failed connect, a timeout and an
 * abort are retryable: the message may have reached the broker anyway, which at-least-once allows.
 */
export class RabbitMqPublisher implements ClosablePublisher {
  private readonly logger = new Logger(RabbitMqPublisher.name);
  private readonly link: RabbitMqLink;

  constructor(
    private readonly destination: RabbitMqDestination,
    amqp: AmqpClient,
  ) {
    this.link = new RabbitMqLink(amqp, destination, this.logger);
  }

  async publish(message: OutboxMessage, { signal }: PublishContext): Promise<void> {
    // Before the channel: `CC`/`BCC` as strings make the broker close the shared channel, failing
    // every publish in flight on it. This message alone goes dead; its neighbours are unaffected.
    const refused = refusedDestinationHeader(this.destination, message.headers);
    if (refused)
      throw new PublishFailedError(headerNotPublished(refused.name, this.destination.name, refused.problem), {
        retryable: false,
      });
    const timeoutMs = this.destination.confirmTimeoutMs;
    let open: OpenChannel;
    try {
      open = await awaitWithin(this.link.channel(), signal, timeoutMs);
    } catch (error) {
      throw this.failure(
        `cannot open a confirm channel to ${this.link.address}: ${this.describe(error, timeoutMs)}`,
        error,
      );
    }
    const headers: Record<string, string> = { ...message.headers, [MESSAGE_ID_AMQP_HEADER]: message.messageId };
    if (message.key !== null) headers[MESSAGE_KEY_AMQP_HEADER] = message.key;
    const confirmed = new Promise<void>((resolve, reject) => {
      // The callback runs on the broker's ack (no error) or nack, or when the channel closes first.
      open.channel.publish(
        this.destination.exchange,
        this.destination.routingKey,
        Buffer.from(message.payload, 'utf8'),
        {
          messageId: message.messageId,
          contentType: 'application/json',
          persistent: this.destination.persistent,
          headers,
        },
        (error: unknown) => (error ? reject(error) : resolve()),
      );
    });
    try {
      await awaitWithin(confirmed, signal, timeoutMs);
    } catch (error) {
      if (error instanceof RangeError) {
        // amqplib could not encode the message (headers over 64 KiB): no retry can succeed.
        throw new PublishFailedError(`RabbitMQ destination "${this.destination.name}": ${error.message}`, {
          retryable: false,
          cause: error,
        });
      }
      const reason =
        error instanceof WaitEndedError
          ? this.describe(error, timeoutMs)
          : (open.closeReason ?? this.describe(error, timeoutMs));
      throw this.failure(`publish to exchange "${this.destination.exchange}" was not confirmed: ${reason}`, error);
    }
  }

  close(): Promise<void> {
    return this.link.close();
  }

  private failure(text: string, cause: unknown): PublishFailedError {
    return new PublishFailedError(`RabbitMQ destination "${this.destination.name}": ${text}`, {
      retryable: true,
      cause,
    });
  }

  private describe(error: unknown, timeoutMs: number): string {
    if (error instanceof WaitEndedError) {
      return error.reason === 'aborted'
        ? 'aborted (claim lost or shutdown); the message may still be delivered'
        : `no answer within ${timeoutMs} ms`;
    }
    if (error instanceof Error && error.message === 'message nacked') return 'the broker nacked the message';
    return this.link.describe(error);
  }
}
