import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { QUEUEBOX_HEALTH_OPTIONS } from './queuebox-health.constants.js';
import type { QueueBoxHealthOptions } from './queuebox-health-options.interface.js';
import { QueueBoxHealthIndicator } from './queuebox.health.js';

/**
 * Provides `QueueBoxHealthIndicator`. Import it next to `QueueBoxModule`; `forRoot(options)`
 * sets the health thresholds (validated at bootstrap: a bad one throws
 * `InvalidQueueBoxOptionsError` naming it).
 *
 * ```ts
 * QueueBoxHealthModule.forRoot({ oldestPendingAge: { degradedAfterMs: 60_000, downAfterMs: 600_000 } })
 * ```
 * @publicApi
 */
@Module({
  imports: [TerminusModule],
  providers: [QueueBoxHealthIndicator],
  exports: [QueueBoxHealthIndicator],
})
export class QueueBoxHealthModule {
  static forRoot(options: QueueBoxHealthOptions = {}): DynamicModule {
    return {
      module: QueueBoxHealthModule,
      providers: [{ provide: QUEUEBOX_HEALTH_OPTIONS, useValue: options }],
    };
  }
}
