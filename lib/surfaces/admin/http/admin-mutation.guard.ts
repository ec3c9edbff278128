import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { adminHeaderRequired, adminJsonOnly } from '../../../shared/queuebox.messages.js';
import type { AdminRequest } from './admin-http-options.interface.js';
import { ADMIN_REQUEST_HEADER, ADMIN_REQUEST_HEADER_VALUE } from './admin-http.constants.js';

/** Refused for want of `X-QueueBox-Admin: 1`; its own class, so that the answer can name the header. */
export class AdminHeaderMissingException extends ForbiddenException {}

/**
 * Lets a replay or discard through only as JSON (415 otherwise) and with `X-QueueBox-Admin: 1`
 * (403 otherwise). It runs after the authentication guard.
 *
 * NOTE: with a guard that trusts the application's session cookie, a plain HTML form on another
 * page of the site would carry the cookie too, and Express's form parser would hand its fields to
 * the route as the body: a forged replay or discard. A form can send neither JSON nor a header of
 * its own, and a cross-origin script cannot send either unless the application's CORS settings
 * allow its origin, so requiring both leaves the page's own script and clients outside the browser.
 */
@Injectable()
export class AdminMutationGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { headers } = context.switchToHttp().getRequest<AdminRequest>();
    if (!isAdminJson(headers['content-type'])) throw new UnsupportedMediaTypeException(adminJsonOnly());
    if (single(headers[ADMIN_REQUEST_HEADER.toLowerCase()])?.trim() !== ADMIN_REQUEST_HEADER_VALUE) {
      throw new AdminHeaderMissingException(adminHeaderRequired(ADMIN_REQUEST_HEADER, ADMIN_REQUEST_HEADER_VALUE));
    }
    return true;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `application/json`, with no parameter but a UTF-8 charset: the only body a mutation takes. */
export function isAdminJson(header: string | string[] | undefined): boolean {
  const value = single(header);
  if (value === undefined) return false;
  const [type, ...parameters] = value.split(';').map((part) => part.trim().toLowerCase());
  return (
    type === 'application/json' &&
    parameters.every((parameter) => parameter === '' || /^charset="?utf-8"?$/.test(parameter))
  );
}
