import { PublishFailedError } from '../errors/publish-failed.error.js';
import type { OutboxMessage } from '../interfaces/outbox-message.interface.js';
import type { OutboxPublisher, PublishContext } from '../interfaces/outbox-publisher.interface.js';
import type { ResolvedDestination } from '../options/resolved-options.interface.js';
import { MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER, SIGNATURE_HEADER } from '../queuebox.constants.js';
import { signMessage } from './message-signature.js';
import { parseRetryAfter } from './retry-after.js';

/** Statuses worth retrying: timeouts, conflicts of the moment, rate limits, server errors. */
const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);

type HttpDestination = Extract<ResolvedDestination, { type: 'http' }>;

/**
 * POSTs the payload (JSON) with `X-Message-Id`, the key, the trace context and the message's
 * headers. 2xx is success; 408/409/425/429/5xx and network failures are retried (honouring
 * `Retry-After`); any other status dead-letters the message at once.
 */
export class HttpPublisher implements OutboxPublisher {
  constructor(private readonly destination: HttpDestination) {}

  async publish(message: OutboxMessage, { signal }: PublishContext): Promise<void> {
    const headers: Record<string, string> = {
      ...this.destination.headers,
      ...message.headers,
      'content-type': 'application/json',
      [MESSAGE_ID_HEADER]: message.messageId,
    };
    if (message.key !== null) headers[MESSAGE_KEY_HEADER] = message.key;
    if (this.destination.secret) {
      headers[SIGNATURE_HEADER] = signMessage(this.destination.secret, message.messageId, message.payload, Math.floor(Date.now() / 1000));
    }
    let response: Response;
    try {
      response = await fetch(this.destination.url, {
        method: 'POST',
        headers,
        body: message.payload,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.destination.timeoutMs)]),
      });
    } catch (error) {
      throw new PublishFailedError(`POST to destination "${this.destination.name}" failed: ${describeFetchError(error)}`, { retryable: true, cause: error });
    }
    // Read the body so the connection can be reused; its content is never logged.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return;
    const retryable = response.status >= 500 || RETRYABLE_STATUS.has(response.status);
    throw new PublishFailedError(`destination "${this.destination.name}" answered HTTP ${response.status}`, {
      retryable,
      retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after'), Date.now()) : undefined,
    });
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  if (error instanceof Error && error.name === 'AbortError') return 'aborted (claim lost or shutdown)';
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}
