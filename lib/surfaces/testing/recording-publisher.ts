import { Injectable } from '@nestjs/common';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { OutboxPublisher, PublishContext } from '../../shared/interfaces/outbox-publisher.interface.js';

/**
 * A destination for tests: keeps every message it is given, in publish order, and succeeds.
 * Register it as a provider and name it in a `custom` destination
 * (`{ type: 'custom', publisher: RecordingPublisher }`); read `published` after `drain(app)`.
 * @publicApi
 */
@Injectable()
export class RecordingPublisher implements OutboxPublisher {
  /** Every message published so far, oldest first (a message retried after a failure appears once per success). */
  readonly published: OutboxMessage[] = [];

  async publish(message: OutboxMessage, _context?: PublishContext): Promise<void> {
    this.published.push(message);
  }

  /** The payloads published (to `destination`, when given), parsed from their JSON text, in publish order. */
  payloads<T = unknown>(destination?: string): T[] {
    return this.published
      .filter((message) => destination === undefined || message.destination === destination)
      .map((message) => JSON.parse(message.payload) as T);
  }

  /** Forgets what was published (between tests that share one app). */
  clear(): void {
    this.published.length = 0;
  }
}
