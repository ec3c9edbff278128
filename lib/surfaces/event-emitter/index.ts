/**
 * `queuebox/event-emitter`: re-emits QueueBox's events on `@nestjs/event-emitter` (an optional
 * peer; the root entry never imports it).
 * @packageDocumentation
 */
export { QueueBoxEventEmitterModule } from './queuebox-event-emitter.module.js';
export { QUEUEBOX_EVENT_PREFIX } from './queuebox-event-emitter.bridge.js';
