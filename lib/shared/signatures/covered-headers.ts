import { MESSAGE_KEY_HEADER } from '../queuebox.constants.js';

/**
 * The headers QueueBox's second signature (`X-QueueBox-Signature`) covers, in this order: what
 * the intake stores from a request besides the id and the body, which the Standard Webhooks
 * signature covers already.
 */
export const COVERED_HEADERS = [MESSAGE_KEY_HEADER.toLowerCase(), 'traceparent', 'tracestate'] as const;

/**
 * The text the second signature is computed over (after `<id>.<timestamp>.`): one
 * `name:value` line per covered header present, in `COVERED_HEADERS` order, joined by `\n`.
 * Header values cannot hold line breaks, so the text is unambiguous; an absent header is absent
 * from it, so adding or dropping one changes the signature.
 */
export function coveredHeadersText(headers: Readonly<Record<string, string | undefined>>): string {
  return COVERED_HEADERS.flatMap((name) => (headers[name] === undefined ? [] : [`${name}:${headers[name]}`])).join(
    '\n',
  );
}

/** True when the request carries any header the second signature covers. */
export function hasCoveredHeaders(headers: Readonly<Record<string, string | undefined>>): boolean {
  return COVERED_HEADERS.some((name) => headers[name] !== undefined);
}
