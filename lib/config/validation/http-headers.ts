import {
  MESSAGE_ID_HEADER,
  MESSAGE_KEY_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../../shared/queuebox.constants.js';

/** RFC 9110 token: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII without surrounding spaces (which HTTP clients strip, so the sent value would differ from the stored one). */
const HEADER_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/**
 * Names that describe the connection or the framing of one request, not a message: the HTTP
 * client sets them itself, and a value given here would corrupt the request or be refused by it
 * at publish time (retried until dead).
 */
const CONNECTION_HEADERS = new Set([
  'connection',
  'content-length',
  'content-encoding',
  'expect',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Set by QueueBox on every publish: a message or destination may not give them. */
const RESERVED_HEADERS = new Set(
  [
    'content-type',
    MESSAGE_ID_HEADER,
    MESSAGE_KEY_HEADER,
    SIGNATURE_HEADER,
    WEBHOOK_ID_HEADER,
    WEBHOOK_TIMESTAMP_HEADER,
    WEBHOOK_SIGNATURE_HEADER,
  ].map((name) => name.toLowerCase()),
);

/** Why a header name is refused, or undefined. */
export function headerNameProblem(name: string): string | undefined {
  if (!HEADER_NAME.test(name)) return 'is not a valid HTTP header name';
  const lower = name.toLowerCase();
  if (CONNECTION_HEADERS.has(lower)) return 'describes the HTTP connection, which the client sets itself';
  if (RESERVED_HEADERS.has(lower)) return 'is set by QueueBox and cannot be given';
  return undefined;
}

/** Why a header value is refused, or undefined. Never quotes the value (it may be a credential). */
export function headerValueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (!HEADER_VALUE.test(value))
    return 'must be printable ASCII without line breaks, control characters or surrounding spaces';
  return undefined;
}
