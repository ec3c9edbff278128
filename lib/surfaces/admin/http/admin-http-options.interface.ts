import type { CanActivate, Type } from '@nestjs/common';

/**
 * What an admin request looks like to `actorOf`: the Express or Fastify request, as far as the
 * admin reads it.
 * @publicApi
 */
export interface AdminRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  /** Set by the application's authentication (Passport and the like), when it has one. */
  user?: unknown;
}

/**
 * Options of `QueueBoxAdminModule` (from `forRoot`, or from `useFactory` in `forRootAsync`, so
 * that a token can come from configuration).
 * @publicApi
 */
export interface QueueBoxAdminModuleOptions {
  /**
   * A bearer token that every API request must send (`Authorization: Bearer <token>`), at least 32
   * characters; compared in constant time. Required unless the `guard` extra is given; with
   * both, a request must pass both.
   */
  bearerToken?: string;
  /**
   * Who is acting, for the log line of every replay or discard. Default: the `id`, `username`,
   * `email` or `sub` of `request.user` when the application's guard set one, else `bearer token`
   * or `guard`.
   */
  actorOf?: (request: AdminRequest) => string | undefined;
}

/** What shapes the admin module itself; known before any factory runs. @publicApi */
export interface QueueBoxAdminModuleExtras {
  /** The route prefix of the API and the page. Default `queuebox/admin`. */
  path?: string;
  /**
   * A guard class of the application (authentication, roles) that every admin request must pass.
   * It is instantiated in the admin module: its dependencies must be global or come through
   * `imports` of `forRootAsync`.
   */
  guard?: Type<CanActivate>;
}
