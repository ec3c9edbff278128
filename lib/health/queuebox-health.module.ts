import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { QueueBoxHealthIndicator } from './queuebox.health.js';

/**
 * Provides `QueueBoxHealthIndicator`. Import it next to `QueueBoxModule`.
 * @publicApi
 */
@Module({
  imports: [TerminusModule],
  providers: [QueueBoxHealthIndicator],
  exports: [QueueBoxHealthIndicator],
})
export class QueueBoxHealthModule {}
