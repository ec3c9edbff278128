import { ConfigurableModuleBuilder } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { QueueBoxModuleOptions } from './interfaces/queuebox-options.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_MODULE_OPTIONS } from './queuebox.constants.js';

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
}

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<QueueBoxModuleOptions>({ optionsInjectionToken: QUEUEBOX_MODULE_OPTIONS })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createQueueBoxOptions')
    .setExtras<QueueBoxModuleExtras>({ isGlobal: false, dataSource: undefined }, (definition, extras) => ({
      ...definition,
      global: extras.isGlobal,
      providers: [
        ...(definition.providers ?? []),
        // The application's DataSource, through @nestjs/typeorm's public token: QueueBox never
        // opens a connection of its own.
        { provide: QUEUEBOX_DATA_SOURCE, useExisting: getDataSourceToken(extras.dataSource) },
      ],
    }))
    .build();
