import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import type { OutboxPublisher } from '../../shared/interfaces/outbox-publisher.interface.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';
import { customPublisherInvalid, customPublisherMissing } from '../../shared/queuebox.messages.js';
import type { ClosablePublisher } from './closable-publisher.interface.js';
import { HttpPublisher } from './http.publisher.js';
import { NatsPublisher, type NatsClient } from './nats.publisher.js';
import { loadPeerPackages } from './optional-peer.js';
import type { AmqpClient } from './rabbitmq-link.js';
import { RabbitMqPublisher } from './rabbitmq.publisher.js';

/**
 * The publisher of each configured destination, resolved once at start-up. Broker publishers
 * connect on first use; their connections are closed in `onApplicationShutdown`, after the
 * poller has drained in `beforeApplicationShutdown`.
 */
@Injectable()
export class PublisherRegistry implements OnModuleInit, OnApplicationShutdown {
  private readonly publishers = new Map<string, OutboxPublisher>();
  private readonly connected: ClosablePublisher[] = [];

  constructor(
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const destination of this.options.destinations.values()) {
      if (destination.type === 'http') {
        this.publishers.set(destination.name, new HttpPublisher(destination));
        continue;
      }
      if (destination.type === 'rabbitmq') {
        const [amqp] = loadPeerPackages<[AmqpClient]>(destination, ['amqplib']);
        this.addConnected(destination.name, new RabbitMqPublisher(destination, amqp));
        continue;
      }
      if (destination.type === 'nats') {
        this.addConnected(
          destination.name,
          new NatsPublisher(
            destination,
            loadPeerPackages<NatsClient>(destination, ['@nats-io/transport-node', '@nats-io/jetstream']),
          ),
        );
        continue;
      }
      const path = `destinations.${destination.name}.publisher`;
      const name = tokenName(destination.publisher);
      let publisher: OutboxPublisher | undefined;
      try {
        publisher = this.moduleRef.get(destination.publisher, { strict: false });
      } catch {
        throw new InvalidQueueBoxOptionsError(path, customPublisherMissing(destination.name, name));
      }
      if (typeof publisher?.publish !== 'function') {
        throw new InvalidQueueBoxOptionsError(path, customPublisherInvalid(destination.name, name));
      }
      this.publishers.set(destination.name, publisher);
    }
  }

  /** Closes the broker connections. In-flight publishes were drained (or aborted) before. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.connected.splice(0).map((publisher) => publisher.close()));
  }

  /** The publisher of a destination, or undefined when this instance does not have it configured. */
  get(destination: string): OutboxPublisher | undefined {
    return this.publishers.get(destination);
  }

  /**
   * Puts `wrap(current)` in place of the publisher of `destination` (the testing kit's injected
   * failures); false when this instance does not have the destination.
   */
  wrap(destination: string, wrap: (publisher: OutboxPublisher) => OutboxPublisher): boolean {
    const current = this.publishers.get(destination);
    if (!current) return false;
    this.publishers.set(destination, wrap(current));
    return true;
  }

  /** Every configured destination name. */
  names(): string[] {
    return [...this.options.destinations.keys()];
  }

  private addConnected(name: string, publisher: ClosablePublisher): void {
    this.publishers.set(name, publisher);
    this.connected.push(publisher);
  }
}

function tokenName(token: unknown): string {
  return typeof token === 'function' ? token.name : String(token);
}
