import { ConfigurableModuleBuilder } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { AdminApiController } from './admin-api.controller.js';
import { AdminBodyErrors } from './admin-body-errors.js';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AdminPageController } from './admin-page.controller.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminMutationGuard } from './admin-mutation.guard.js';
import type { QueueBoxAdminModuleExtras, QueueBoxAdminModuleOptions } from './admin-http-options.interface.js';
import {
  DEFAULT_ADMIN_PATH,
  QUEUEBOX_ADMIN_APP_GUARD,
  QUEUEBOX_ADMIN_MODULE_OPTIONS,
  QUEUEBOX_ADMIN_PATH,
  QUEUEBOX_ADMIN_SETTINGS,
} from './admin-http.constants.js';
import { checkAdminPath, resolveAdminSettings } from './admin-settings.js';

export const {
  ConfigurableModuleClass: ConfigurableAdminModuleClass,
  OPTIONS_TYPE: ADMIN_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: ADMIN_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<QueueBoxAdminModuleOptions>({ optionsInjectionToken: QUEUEBOX_ADMIN_MODULE_OPTIONS })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createQueueBoxAdminOptions')
  .setExtras<QueueBoxAdminModuleExtras>({ path: DEFAULT_ADMIN_PATH, guard: undefined }, (definition, extras) => {
    const path = checkAdminPath(extras.path ?? DEFAULT_ADMIN_PATH);
    return {
      ...definition,
      imports: [...(definition.imports ?? []), RouterModule.register([{ path, module: definition.module }])],
      controllers: [AdminApiController, AdminPageController],
      providers: [
        ...(definition.providers ?? []),
        ...(extras.guard ? [extras.guard, { provide: QUEUEBOX_ADMIN_APP_GUARD, useExisting: extras.guard }] : []),
        {
          // Validated before any route is served: no protection, no start.
          provide: QUEUEBOX_ADMIN_SETTINGS,
          useFactory: resolveAdminSettings,
          inject: [QUEUEBOX_ADMIN_MODULE_OPTIONS, { token: QUEUEBOX_ADMIN_APP_GUARD, optional: true }],
        },
        AdminAuthGuard,
        AdminMutationGuard,
        AdminExceptionFilter,
        { provide: QUEUEBOX_ADMIN_PATH, useValue: path },
        AdminBodyErrors,
      ],
    };
  })
  .build();
