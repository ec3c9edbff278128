import { ConfigurableModuleBuilder } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { InboxIntakeController } from './inbox/inbox-intake.controller.js';
import { IntakeBodyReader } from './inbox/intake-body-reader.js';
import type { QueueBoxModuleOptions } from './interfaces/queuebox-options.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_INTAKE_PATH, QUEUEBOX_MODULE_OPTIONS } from './queuebox.constants.js';

/**
 * Options that shape the module itself, given next to the other options in `forRoot` and
 * `forRootAsync` alike (they must be known before any factory runs).
 * @publicApi
 */
export interface QueueBoxModuleExtras {
  /** Register the module globally. Default false. */
  isGlobal?: boolean;
  /** Name of the `@nestjs/typeorm` DataSource to use (as in `TypeOrmModule.forRoot({ name })`); the default one when omitted. */
  dataSource?: string;
  /**
   * Mounts the inbox HTTP intake (`POST <path>/:source`), for example `{ path: 'inbox' }`.
   * Not mounted when omitted.
   */
  intake?: { path: string };
}

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<QueueBoxModuleOptions>({ optionsInjectionToken: QUEUEBOX_MODULE_OPTIONS })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createQueueBoxOptions')
    .setExtras<QueueBoxModuleExtras>({ isGlobal: false, dataSource: undefined, intake: undefined }, (definition, extras) => ({
      ...definition,
      global: extras.isGlobal,
      ...(extras.intake && {
        controllers: [InboxIntakeController],
        imports: [...(definition.imports ?? []), RouterModule.register([{ path: extras.intake.path, module: definition.module }])],
      }),
      providers: [
        ...(definition.providers ?? []),
        ...(extras.intake ? [{ provide: QUEUEBOX_INTAKE_PATH, useValue: extras.intake.path }, IntakeBodyReader] : []),
        // The application's DataSource, through @nestjs/typeorm's public token: QueueBox never
        // opens a connection of its own.
        { provide: QUEUEBOX_DATA_SOURCE, useExisting: getDataSourceToken(extras.dataSource) },
      ],
    }))
    .build();
