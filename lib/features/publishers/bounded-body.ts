/** The start of a response body, and whether more followed. */
export interface BodyPrefix {
  bytes: Buffer;
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response body and cancels the rest: a destination that answers
 * with megabytes must not cost the publisher their memory. A body read to its end lets the HTTP
 * client reuse the connection; a cancelled one closes it, which is the right price for an
 * oversize answer.
 */
export async function readBodyPrefix(response: Response, maxBytes: number): Promise<BodyPrefix> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: Buffer.alloc(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), truncated: false };
      chunks.push(value);
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
      }
    }
  } catch {
    // A body that breaks off is no reason to change the outcome the status already gave.
    return { bytes: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
  } finally {
    reader.releaseLock();
  }
}

/** A short, log-safe text of a body prefix: printable characters only, at most `maxChars`. */
export function describeBody(prefix: BodyPrefix, maxChars: number): string {
  const text = prefix.bytes
    .toString('utf8')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim();
  if (text.length === 0) return '';
  return text.length > maxChars || prefix.truncated ? `${text.slice(0, maxChars)}…` : text;
}
