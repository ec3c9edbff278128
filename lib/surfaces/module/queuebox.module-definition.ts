import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DiscoveryModule, RouterModule } from '@nestjs/core';
import { InboxIntakeController } from '../../features/inbox/inbox-intake.controller.js';
import { IntakeBodyReader } from '../../features/inbox/intake-body-reader.js';
import type { QueueBoxModuleOptions } from '../../shared/interfaces/queuebox-options.interface.js';
import { QUEUEBOX_INTAKE_PATH, QUEUEBOX_MODULE_OPTIONS } from '../../shared/queuebox.constants.js';
import { QUEUEBOX_EXPORTS, queueBoxProviders } from './queuebox.providers.js';

/**
 * Options that shape the module itself, given next to the other options in `forRoot`, and next
 * to `useFactory` in `forRootAsync` (they must be known before any factory runs).
 * @publicApi
 */
export interface QueueBoxModuleExtras {
  /**
   * Register the module globally, so that every feature module can inject `OutboxService`,
   * `InboxService` and `PullService` without importing it. Default true, as for
   * `@nestjs/typeorm` and `@nestjs/bullmq`: there is one QueueBox per database, and its services
   * are used across an application.
   */
  isGlobal?: boolean;
  /** Name of the `@nestjs/typeorm` DataSource to use (as in `TypeOrmModule.forRoot({ name })`); the default one when omitted. */
  dataSource?: string;
  /**
   * Mounts the inbox HTTP intake (`POST <path>/:source`), for example `{ path: 'inbox' }`.
   * Not mounted when omitted. `inbox.sources` must then say which sources it accepts.
   */
  intake?: { path: string };
}

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<QueueBoxModuleOptions>({ optionsInjectionToken: QUEUEBOX_MODULE_OPTIONS })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createQueueBoxOptions')
    .setExtras<QueueBoxModuleExtras>(
      { isGlobal: true, dataSource: undefined, intake: undefined },
      (definition, extras) => ({
        ...definition,
        global: extras.isGlobal,
        imports: [
          ...(definition.imports ?? []),
          DiscoveryModule,
          ...(extras.intake ? [RouterModule.register([{ path: extras.intake.path, module: definition.module }])] : []),
        ],
        controllers: extras.intake ? [InboxIntakeController] : [],
        providers: [
          ...(definition.providers ?? []),
          ...queueBoxProviders(extras.dataSource),
          ...(extras.intake ? [{ provide: QUEUEBOX_INTAKE_PATH, useValue: extras.intake.path }, IntakeBodyReader] : []),
        ],
        exports: [...(definition.exports ?? []), ...QUEUEBOX_EXPORTS],
      }),
    )
    .build();
