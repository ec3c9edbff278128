/**
 * What of a URL is secret, for everything QueueBox shows of one (the CLI's output, the
 * conformance check's messages, broker errors in logs): the password, and the value of every
 * query parameter whose name says it holds a credential. Drivers take credentials from the
 * query too: `pg` reads `?password=` and `?sslpassword=`, and a key file's path (`?sslkey=`)
 * tells an attacker where to look.
 */

/** The shown replacement of a secret. */
export const MASK = '***';

/**
 * Parameter names (any case) that hold a secret: any containing `pass` (password, sslpassword,
 * passphrase), `pwd`, `secret`, `token`, `key` (sslkey, apikey, api_key), `auth`, `credential` or
 * `signature`, and `sig` (a shared access signature).
 */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|credential|signature|^sig$/i;

/** Whether a query parameter of this name is masked. */
export function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETER.test(name);
}

/**
 * The URL with its password and secret query values replaced by `***`; the other parameters keep
 * their exact spelling. Text that is not a URL is hidden whole.
 */
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

/**
 * Text that names a URL, for a message about it: masked as `maskUrl` does when it parses; when it
 * does not, its user information and its whole query are hidden.
 */
export function describeUrl(value: string): string {
  if (URL.canParse(value)) return maskUrl(value);
  return value.replace(/\/\/[^@/]*@/, `//${MASK}@`).replace(/\?.*$/s, `?${MASK}`);
}

/**
 * The secrets of a URL, as written and decoded: its password and the values of its secret query
 * parameters, to scrub from text that may echo them (a driver's error message). Empty for text
 * that is not a URL.
 */
export function urlSecrets(value: string): string[] {
  if (!URL.canParse(value)) return [];
  const url = new URL(value);
  const secrets = [url.password, safeDecode(url.password)];
  for (const { name, value: given } of parameters(url.search)) {
    if (given !== undefined && isSecretParameter(name)) secrets.push(given, safeDecode(given.replace(/\+/g, ' ')));
  }
  return [...new Set(secrets.filter((secret) => secret.length > 0))];
}

/** The parameters of a query string, each as written (`raw`), with its decoded name and its raw value. */
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
