import { parseBrokerUrl } from '../../config/options/broker-url.js';
import { MASK, urlSecrets } from '../../config/validation/url-secrets.js';

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

/**
 * A client's error text with the URLs of `urls`, their passwords and secret query values (see
 * `isSecretParameter`) masked, should a client echo them.
 */
export function scrubCredentials(text: string, urls: readonly string[]): string {
  let scrubbed = text;
  for (const url of urls) {
    const parsed = parseBrokerUrl(url, 'nats:');
    const secrets = [url, ...(parsed ? urlSecrets(parsed.toString()) : [])].sort((a, b) => b.length - a.length);
    for (const secret of secrets) scrubbed = scrubbed.split(secret).join(MASK);
  }
  return scrubbed;
}
