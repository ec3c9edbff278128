import type { CanActivate } from '@nestjs/common';
import { InvalidQueueBoxOptionsError } from '../../../shared/errors/invalid-queuebox-options.error.js';
import { adminBearerTokenTooShort, adminUnprotected, invalidAdminPath } from '../../../shared/queuebox.messages.js';
import type { AdminRequest, QueueBoxAdminModuleOptions } from './admin-http-options.interface.js';
import { MIN_BEARER_TOKEN_LENGTH } from './admin-http.constants.js';
import { BearerToken } from './bearer-token.js';

/** The admin module's options, validated: how a request is let in, and who it is. */
export interface AdminSettings {
  token?: BearerToken;
  appGuard?: CanActivate;
  actorOf?: (request: AdminRequest) => string | undefined;
}

const PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Checks the route prefix while the module is defined: a bad one fails at import. */
export function checkAdminPath(path: string): string {
  if (typeof path !== 'string' || !PATH.test(path))
    throw new InvalidQueueBoxOptionsError('admin.path', invalidAdminPath(path));
  return path;
}

/**
 * Validates the options at start-up. The admin changes data: with neither a bearer token nor an
 * application guard it refuses to start, rather than serve an open door.
 */
export function resolveAdminSettings(
  options: QueueBoxAdminModuleOptions | undefined,
  appGuard: CanActivate | undefined,
): AdminSettings {
  const { bearerToken, actorOf } = options ?? {};
  if (
    bearerToken !== undefined &&
    (typeof bearerToken !== 'string' || bearerToken.length < MIN_BEARER_TOKEN_LENGTH || /\s/.test(bearerToken))
  ) {
    throw new InvalidQueueBoxOptionsError('admin.bearerToken', adminBearerTokenTooShort(MIN_BEARER_TOKEN_LENGTH));
  }
  if (bearerToken === undefined && appGuard === undefined)
    throw new InvalidQueueBoxOptionsError('admin.guard', adminUnprotected());
  return { token: bearerToken === undefined ? undefined : new BearerToken(bearerToken), appGuard, actorOf };
}
