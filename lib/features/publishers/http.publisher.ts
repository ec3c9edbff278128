import { PublishFailedError } from '../../shared/errors/publish-failed.error.js';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { OutboxPublisher, PublishContext } from '../../shared/interfaces/outbox-publisher.interface.js';
import type { ResolvedDestination } from '../../config/options/resolved-options.interface.js';
import {
  MESSAGE_ID_HEADER,
  MESSAGE_KEY_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../../shared/queuebox.constants.js';
import { coveredHeadersText, hasCoveredHeaders } from '../../shared/signatures/covered-headers.js';
import { webhookSignatures } from '../../shared/signatures/webhook-signature.js';
import { describeBody, readBodyPrefix } from './bounded-body.js';
import { parseRetryAfter } from './retry-after.js';

/** Statuses worth retrying: timeouts, conflicts of the moment, rate limits, server errors. */
const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);
/** Most bytes of a response read: enough for an error message, never a whole oversize answer. */
const MAX_RESPONSE_BYTES = 4_096;
/** Most characters of an error answer kept in the error text (and so in `last_error`). */
const MAX_ERROR_BODY_CHARS = 200;

type HttpDestination = Extract<ResolvedDestination, { type: 'http' }>;

/**
 * POSTs the payload (JSON) with the key, the trace context and the message's headers. A
 * destination with secrets is signed by the Standard Webhooks scheme (`webhook-id` is the message
 * id), plus `X-QueueBox-Signature` over the key and trace headers when there are any; an
 * unsigned one carries the message id as `X-Message-Id`. 2xx is success; 408/409/425/429/5xx and
 * network failures are retried (honouring `Retry-After`); any other status dead-letters the
 * message at once.
 */
export class HttpPublisher implements OutboxPublisher {
  constructor(private readonly destination: HttpDestination) {}

  async publish(message: OutboxMessage, { signal }: PublishContext): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.destination.url, {
        method: 'POST',
        headers: this.headersOf(message),
        body: message.payload,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.destination.timeoutMs)]),
      });
    } catch (error) {
      throw new PublishFailedError(
        `POST to destination "${this.destination.name}" failed: ${describeFetchError(error)}`,
        { retryable: true, cause: error },
      );
    }
    const body = await readBodyPrefix(response, MAX_RESPONSE_BYTES);
    if (response.status >= 200 && response.status < 300) return;
    const retryable = response.status >= 500 || RETRYABLE_STATUS.has(response.status);
    const said = describeBody(body, MAX_ERROR_BODY_CHARS);
    throw new PublishFailedError(
      `destination "${this.destination.name}" answered HTTP ${response.status}${said ? `: ${said}` : ''}`,
      {
        retryable,
        retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after'), Date.now()) : undefined,
      },
    );
  }

  private headersOf(message: OutboxMessage): Record<string, string> {
    // Lower-case names: HTTP names are case-insensitive, and the covered-headers text must read
    // the same names the receiver sees. The destination's own headers (its credentials) come last:
    // a message cannot replace them (enqueue refuses that; a row stored before the destination
    // configured the header still carries it).
    const headers: Record<string, string> = {};
    for (const [name, value] of [...Object.entries(message.headers), ...Object.entries(this.destination.headers)])
      headers[name.toLowerCase()] = value;
    headers['content-type'] = 'application/json';
    if (message.key !== null) headers[MESSAGE_KEY_HEADER.toLowerCase()] = message.key;
    const keys = this.destination.secrets;
    if (!keys) {
      headers[MESSAGE_ID_HEADER.toLowerCase()] = message.messageId;
      return headers;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    headers[WEBHOOK_ID_HEADER] = message.messageId;
    headers[WEBHOOK_TIMESTAMP_HEADER] = String(timestamp);
    headers[WEBHOOK_SIGNATURE_HEADER] = webhookSignatures(keys, message.messageId, timestamp, message.payload);
    if (hasCoveredHeaders(headers))
      headers[SIGNATURE_HEADER.toLowerCase()] = webhookSignatures(
        keys,
        message.messageId,
        timestamp,
        coveredHeadersText(headers),
      );
    return headers;
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  if (error instanceof Error && error.name === 'AbortError') return 'aborted (claim lost or shutdown)';
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}
