import { Module } from '@nestjs/common';
import { QueueBoxEventEmitterBridge } from './queuebox-event-emitter.bridge.js';

/**
 * Opt-in bridge to `@nestjs/event-emitter` (an optional peer): import it next to
 * `EventEmitterModule.forRoot()` and a global `QueueBoxModule`, then listen with
 * `@OnEvent('queuebox.message.dead-lettered')` and the other `queuebox.*` names.
 * @publicApi
 */
@Module({
  providers: [QueueBoxEventEmitterBridge],
})
export class QueueBoxEventEmitterModule {}
