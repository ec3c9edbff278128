import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { adminForbidden, adminUnauthorized } from '../../../shared/queuebox.messages.js';
import type { AdminRequest } from './admin-http-options.interface.js';
import { QUEUEBOX_ADMIN_SETTINGS } from './admin-http.constants.js';
import type { AdminSettings } from './admin-settings.js';

/**
 * Lets an admin API request in only with the bearer token (401 otherwise) and through the
 * application's guard (403 when it says no); both when both are configured. The page shell is
 * outside it (`@PublicAdminRoute`): it holds no data, and a browser cannot send a header on
 * navigation.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(@Inject(QUEUEBOX_ADMIN_SETTINGS) private readonly settings: AdminSettings) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const { token, appGuard } = this.settings;
    if (token) {
      const header = request.headers.authorization;
      if (!token.matches(Array.isArray(header) ? header[0] : header))
        throw new UnauthorizedException(adminUnauthorized());
    }
    if (appGuard) {
      const verdict = appGuard.canActivate(context);
      if (!(isObservable(verdict) ? await lastValueFrom(verdict) : await verdict))
        throw new ForbiddenException(adminForbidden());
    }
    return true;
  }
}
