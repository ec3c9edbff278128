import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InvalidQueueBoxOptionsError } from '../errors/invalid-queuebox-options.error.js';
import type { OutboxPublisher } from '../interfaces/outbox-publisher.interface.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../queuebox.constants.js';
import { customPublisherInvalid, customPublisherMissing } from '../queuebox.messages.js';
import { HttpPublisher } from './http.publisher.js';

/** The publisher of each configured destination, resolved once at start-up. */
@Injectable()
export class PublisherRegistry implements OnModuleInit {
  private readonly publishers = new Map<string, OutboxPublisher>();

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

  /** The publisher of a destination, or undefined when this instance does not have it configured. */
  get(destination: string): OutboxPublisher | undefined {
    return this.publishers.get(destination);
  }

  /** Every configured destination name. */
  names(): string[] {
    return [...this.options.destinations.keys()];
  }
}

function tokenName(token: unknown): string {
  return typeof token === 'function' ? token.name : String(token);
}
