import { Module } from '@nestjs/common';
import { ConfigurableAdminModuleClass } from './queuebox-admin.module-definition.js';

/**
 * The admin JSON API and page of QueueBox, opt-in, under `path` (default `queuebox/admin`). It
 * refuses to start without protection: a bearer token (compared in constant time), or a guard
 * class of the application, or both. Every replay and discard is logged with who, what and how
 * many. Import it next to `QueueBoxModule`:
 *
 * ```ts
 * QueueBoxAdminModule.forRootAsync({
 *   path: 'ops/queuebox',
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ bearerToken: config.getOrThrow('QUEUEBOX_ADMIN_TOKEN') }),
 * })
 * ```
 * @publicApi
 */
@Module({})
export class QueueBoxAdminModule extends ConfigurableAdminModuleClass {}
