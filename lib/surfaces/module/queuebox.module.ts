import { Module } from '@nestjs/common';
import { ConfigurableModuleClass } from './queuebox.module-definition.js';

/**
 * QueueBox: a transactional outbox, an idempotent inbox with its relay, and pull workers, on the
 * application's TypeORM DataSource. Register it once, in the root module; it is global by
 * default, so feature modules inject its services without importing it.
 *
 * ```ts
 * QueueBoxModule.forRoot({ destinations: { billing: { type: 'http', url: 'https://billing/hooks' } } })
 * ```
 * Call `app.enableShutdownHooks()` so that in-flight publishes drain on SIGTERM.
 * @publicApi
 */
@Module({})
export class QueueBoxModule extends ConfigurableModuleClass {}
