/**
 * What of a URL is secret, for everything QueueBox shows of one: the password, and every query value
 * whose name says it holds a credential (`pg` reads `?password=`, `?sslpassword=`; `?sslkey=` tells
 * an attacker where to look).
 */

export const MASK = '***';

/** Secret parameter names (any case); `sig` is a shared access signature. */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|credential|signature|^sig$/i;

export function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETER.test(name);
}

/** The URL with its password and secret query values as `***`; text that is not a URL is hidden whole. */
export function maskUrl(value: string): string {
  if (!URL.canParse(value)) return MASK;
  const url = new URL(value);
  if (url.password !== '') url.password = MASK;
  url.search = parameters(url.search)
    .map(({ raw, name, value: given }) =>
      given !== undefined && isSecretParameter(name) ? `${raw.slice(0, raw.indexOf('='))}=${MASK}` : raw,
    )
    .join('&');
  return url.toString();
}

/** A URL for a message: as `maskUrl`; unparsable, its user information and query are hidden. */
export function describeUrl(value: string): string {
  if (URL.canParse(value)) return maskUrl(value);
  return value.replace(/\/\/[^@/]*@/, `//${MASK}@`).replace(/\?.*$/s, `?${MASK}`);
}

/** A URL's password and secret query values, raw and decoded, to scrub from echoing text (driver errors). */
export function urlSecrets(value: string): string[] {
  if (!URL.canParse(value)) return [];
  const url = new URL(value);
  const secrets = [url.password, safeDecode(url.password)];
  for (const { name, value: given } of parameters(url.search)) {
    if (given !== undefined && isSecretParameter(name)) secrets.push(given, safeDecode(given.replace(/\+/g, ' ')));
  }
  return [...new Set(secrets.filter((secret) => secret.length > 0))];
}

function parameters(search: string): { raw: string; name: string; value?: string }[] {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter((raw) => raw !== '')
    .map((raw) => {
      const equals = raw.indexOf('=');
      const name = safeDecode((equals < 0 ? raw : raw.slice(0, equals)).replace(/\+/g, ' '));
      return { raw, name, value: equals < 0 ? undefined : raw.slice(equals + 1) };
    });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
