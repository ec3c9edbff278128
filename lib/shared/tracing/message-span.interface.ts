import type { SpanOutcome } from './messaging-attributes.js';

/**
 * One span around one message's operation. Declared apart from the tracer: the claim loops'
 * declarations name it, and must not name `@opentelemetry/api`, an optional peer an application
 * may not have.
 */
export interface MessageSpan {
  /** Runs `work` with this span as the active context (so that its context propagates). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Writes this span's W3C context (`traceparent`, `tracestate`) into `headers`; returns them. */
  inject(headers: Record<string, string>): Record<string, string>;
  /** Records the error the work failed with (an exception event, status ERROR); the span goes on. */
  recordError(error: unknown): void;
  /** Ends the span with `queuebox.outcome`; an error given here is recorded first. */
  end(outcome: SpanOutcome, error?: unknown): void;
}
