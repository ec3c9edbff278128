import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A bearer token kept as its SHA-256 digest. Requests are compared digest to digest with
 * `timingSafeEqual`: the time taken says nothing about how much of a guess was right, and the
 * digests are of equal length whatever the guess's length.
 */
export class BearerToken {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = sha256(token);
  }

  /** Whether an `Authorization` header value carries the token. */
  matches(authorization: string | undefined): boolean {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return false;
    return timingSafeEqual(sha256(match[1]), this.digest);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
