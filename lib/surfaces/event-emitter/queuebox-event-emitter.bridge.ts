import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';

/** The prefix of QueueBox's event names on EventEmitter2: `queuebox.message.dead-lettered`, … */
export const QUEUEBOX_EVENT_PREFIX = 'queuebox.';

/**
 * Re-emits every QueueBox event on `@nestjs/event-emitter`'s EventEmitter2 as
 * `queuebox.<event>`, so that `@OnEvent('queuebox.claim.lost')` handlers receive them. Delivery
 * stays off the claim path: QueueBox hands events over on a later turn of the event loop.
 * @publicApi
 */
@Injectable()
export class QueueBoxEventEmitterBridge implements OnModuleInit, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(
    private readonly events: QueueBoxEvents,
    private readonly emitter: EventEmitter2,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.onAny((event, payload) => {
      this.emitter.emit(`${QUEUEBOX_EVENT_PREFIX}${event}`, payload);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
