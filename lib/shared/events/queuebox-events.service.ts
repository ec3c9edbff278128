import { Injectable, Logger } from '@nestjs/common';
import { errorText } from '../errors/error-text.js';
import type { QueueBoxEventListener, QueueBoxEventMap, QueueBoxEventName } from './queuebox-event-map.interface.js';

/** A listener of every event (the `@nestjs/event-emitter` bridge). */
export type QueueBoxAnyEventListener = <E extends QueueBoxEventName>(
  event: E,
  payload: QueueBoxEventMap[E],
) => void | Promise<void>;

/**
 * Typed in-process hooks: subscribe with `on(event, listener)`. Events are delivered after the
 * code that emitted them returned (`setImmediate`), so a slow or failing listener never holds a
 * claim, a renewal or a finishing write back; a listener's error is logged and dropped.
 *
 * ```ts
 * constructor(events: QueueBoxEvents) { events.on('message.dead-lettered', (dead) => this.page(dead)); }
 * ```
 * @publicApi
 */
@Injectable()
export class QueueBoxEvents {
  private readonly logger = new Logger(QueueBoxEvents.name);
  private readonly listeners = new Map<QueueBoxEventName, Set<QueueBoxEventListener<never>>>();
  private readonly anyListeners = new Set<QueueBoxAnyEventListener>();

  /** Subscribes to one event; returns the unsubscribe function. */
  on<E extends QueueBoxEventName>(event: E, listener: QueueBoxEventListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as QueueBoxEventListener<never>);
    return () => void set.delete(listener as QueueBoxEventListener<never>);
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  onAny(listener: QueueBoxAnyEventListener): () => void {
    this.anyListeners.add(listener);
    return () => void this.anyListeners.delete(listener);
  }

  /** Whether anything listens to `event` (lets a hot path skip building the payload). @internal */
  wants(event: QueueBoxEventName): boolean {
    return this.anyListeners.size > 0 || (this.listeners.get(event)?.size ?? 0) > 0;
  }

  /**
   * Emits `event`; QueueBox's own, so not in the published types: an application that emitted
   * QueueBox's events would fake them. Returns at once: delivery is on a later turn of the event loop.
   * @internal
   */
  emit<E extends QueueBoxEventName>(event: E, payload: QueueBoxEventMap[E]): void {
    if (!this.wants(event)) return;
    setImmediate(() => this.deliver(event, payload));
  }

  private deliver<E extends QueueBoxEventName>(event: E, payload: QueueBoxEventMap[E]): void {
    for (const listener of this.listeners.get(event) ?? [])
      this.call(event, () => (listener as QueueBoxEventListener<E>)(payload));
    for (const listener of this.anyListeners) this.call(event, () => listener(event, payload));
  }

  private call(event: QueueBoxEventName, invoke: () => void | Promise<void>): void {
    const failed = (error: unknown): void =>
      this.logger.error('QueueBox event listener failed', { event, error: errorText(error) });
    try {
      const result = invoke();
      if (result && typeof result.then === 'function') result.then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  }
}
