import { parseBrokerUrl } from '../options/broker-url.js';

/**
 * Log-safe descriptions of broker addresses. A broker URL may carry a user and password, so
 * messages name the scheme, host and path only, and scrub the credentials from client errors.
 */

/** `amqp://host:5672/vhost` for `amqp://user:secret@host:5672/vhost?heartbeat=5`. */
export function describeBrokerUrl(url: string, defaultScheme = 'nats:'): string {
  const parsed = parseBrokerUrl(url, defaultScheme);
  if (!parsed) return 'an unreadable address';
  const path = parsed.pathname === '/' || parsed.pathname === '' ? '' : parsed.pathname;
  return `${parsed.protocol}//${parsed.host}${path}`;
}

/** A client's error text with the URLs and passwords of `urls` masked, should a client echo them. */
export function scrubCredentials(text: string, urls: readonly string[]): string {
  let scrubbed = text;
  for (const url of urls) {
    const password = parseBrokerUrl(url, 'nats:')?.password ?? '';
    const secrets = [url, password, safeDecode(password)].filter((secret) => secret.length > 0);
    for (const secret of secrets) scrubbed = scrubbed.split(secret).join('***');
  }
  return scrubbed;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
