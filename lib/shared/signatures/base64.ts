/** Canonical base64 (RFC 4648, padded, no line breaks or other characters). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of a canonical base64 text, or undefined for anything else. Node's own decoding is
 * lenient: it stops at the first `=` and skips characters outside the alphabet, so `<sig>=junk`
 * would decode to `<sig>`'s bytes. A secret or a signature that is not exactly base64 is refused
 * instead of being read as some other text that happens to decode to the same bytes.
 */
export function decodeBase64Strictly(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}
