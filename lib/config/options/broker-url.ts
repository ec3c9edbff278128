/**
 * Parses a broker address; a bare `host:port` (allowed for NATS servers) gets `defaultScheme`.
 * NOTE: `new URL('localhost:4222')` parses as the scheme "localhost:", hence the prefix.
 */
export function parseBrokerUrl(url: string, defaultScheme: string): URL | undefined {
  const withScheme = url.includes('://') ? url : `${defaultScheme}//${url}`;
  return URL.canParse(withScheme) ? new URL(withScheme) : undefined;
}
