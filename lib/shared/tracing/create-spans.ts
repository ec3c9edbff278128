import type { MessageSpan } from './message-span.interface.js';
import type { MessagingTracer } from './messaging-tracer.js';

/**
 * The `create` spans of one enqueue (one per message): each message stores its own span's
 * context, and every span ends once the insert succeeded or failed.
 */
export class CreateSpans {
  private readonly spans: MessageSpan[] = [];

  constructor(private readonly tracer: MessagingTracer) {}

  /** Starts the message's `create` span and writes its context into the headers to store. */
  inject(headers: Record<string, string>, destination: string, messageId: string): Record<string, string> {
    const span = this.tracer.create(destination, messageId);
    this.spans.push(span);
    return span.inject(headers);
  }

  /** Ends every span: `created`, or `failed` with the error recorded. */
  endAll(error?: unknown): void {
    for (const span of this.spans) span.end(error === undefined ? 'created' : 'failed', error);
  }
}
