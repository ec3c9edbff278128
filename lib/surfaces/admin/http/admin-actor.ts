import type { AdminRequest } from './admin-http-options.interface.js';
import type { AdminSettings } from './admin-settings.js';

/** Longest actor text in a log line. */
const MAX_ACTOR = 120;

/**
 * Who made an admin request, for the log line of a mutation: the application's answer
 * (`actorOf`), else the identity its guard attached (`request.user`), else how the request got in;
 * with the client address.
 */
export function actorOf(request: AdminRequest, settings: AdminSettings): string {
  const named = settings.actorOf?.(request) ?? userName(request.user) ?? (settings.token ? 'bearer token' : 'guard');
  const who = String(named)
    .replace(/[\r\n]/g, ' ')
    .slice(0, MAX_ACTOR);
  return request.ip ? `${who} from ${request.ip}` : who;
}

function userName(user: unknown): string | undefined {
  if (typeof user !== 'object' || user === null) return undefined;
  const record = user as Record<string, unknown>;
  for (const field of ['id', 'username', 'email', 'sub']) {
    const value = record[field];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return undefined;
}
