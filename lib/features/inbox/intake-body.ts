import type { IncomingMessage } from 'node:http';

/** What the intake read of a request body before any body parser of the application ran. */
export type IntakeBody = { kind: 'read'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'timed-out' };

/** Where the intake's own body reader leaves its result on the request. */
export const INTAKE_BODY = Symbol('queuebox.intakeBody');

/** A request that may carry the intake's own reading of its body. */
export interface IntakeBodyCarrier {
  [INTAKE_BODY]?: IntakeBody;
}

/**
 * Reads a request body as raw bytes, up to `maxBytes` and within `timeoutMs`: a declared
 * `Content-Length` above the limit is refused before a byte is read, a body that grows past it
 * stops being read, and so does one still incomplete when the time is up (a sender that stalls
 * would otherwise hold its buffer until Node's own request timeout, minutes later). The bytes are
 * kept exactly as sent, so a signature can be checked over them.
 */
export function readIntakeBody(request: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<IntakeBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (body: IntakeBody): void => {
      cleanup();
      request.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ kind: 'read', bytes: Buffer.concat(chunks) });
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const deadline = setTimeout(() => {
      chunks.length = 0;
      stop({ kind: 'timed-out' });
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(deadline);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}
