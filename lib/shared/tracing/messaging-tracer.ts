import type { Context, Link, Span, Tracer } from '@opentelemetry/api';
import {
  MESSAGING_DESTINATION_NAME,
  MESSAGING_MESSAGE_ID,
  MESSAGING_OPERATION_NAME,
  MESSAGING_OPERATION_TYPE,
  MESSAGING_SYSTEM,
  type MessagingOperationName,
  type MessagingOperationType,
  QUEUEBOX_ATTEMPT,
  QUEUEBOX_MESSAGING_SYSTEM,
  QUEUEBOX_OUTCOME,
  type SpanOutcome,
} from './messaging-attributes.js';
import type { MessageSpan } from './message-span.interface.js';
import { type OpenTelemetryApi, openTelemetry } from './trace-context.js';

/**
 * Spans by the OpenTelemetry messaging semantic conventions: `create` (PRODUCER, in the caller's
 * trace) at enqueue, `send` (PRODUCER, a child of and linked to the message's creation context)
 * at publish, `process` (CONSUMER, continuing and linked to the sender's context) for the relay
 * and pull workers.
 */
export class MessagingTracer {
  private readonly tracer: Tracer;

  constructor(private readonly otel: OpenTelemetryApi) {
    this.tracer = otel.trace.getTracer('queuebox');
  }

  /** `create <destination>` in the caller's active context. */
  create(destination: string, messageId: string): MessageSpan {
    return this.start('create', 'enqueue', destination, messageId, undefined, this.otel.context.active(), false);
  }

  /** `send <destination>` of a stored message whose headers carry its creation context. */
  send(destination: string, messageId: string, attempt: number, headers: Record<string, string>): MessageSpan {
    return this.start('send', 'publish', destination, messageId, attempt, this.extract(headers), true);
  }

  /** `process <source>` of an inbox message whose headers carry the sender's context. */
  process(
    operation: 'relay' | 'pull',
    source: string,
    messageId: string,
    attempt: number,
    headers: Record<string, string>,
  ): MessageSpan {
    return this.start('process', operation, source, messageId, attempt, this.extract(headers), true);
  }

  private extract(headers: Record<string, string>): Context {
    // Not the active context: a poll loop's context belongs to no message.
    return this.otel.propagation.extract(this.otel.context.active(), headers);
  }

  private start(
    type: MessagingOperationType,
    operation: MessagingOperationName,
    destination: string,
    messageId: string,
    attempt: number | undefined,
    parent: Context,
    linkParent: boolean,
  ): MessageSpan {
    const { otel } = this;
    const parentSpan = linkParent ? otel.trace.getSpanContext(parent) : undefined;
    const links: Link[] | undefined =
      parentSpan && otel.trace.isSpanContextValid(parentSpan) ? [{ context: parentSpan }] : undefined;
    const span = this.tracer.startSpan(
      `${type} ${destination}`,
      {
        kind: type === 'process' ? otel.SpanKind.CONSUMER : otel.SpanKind.PRODUCER,
        links,
        attributes: {
          [MESSAGING_SYSTEM]: QUEUEBOX_MESSAGING_SYSTEM,
          [MESSAGING_OPERATION_TYPE]: type,
          [MESSAGING_OPERATION_NAME]: operation,
          [MESSAGING_DESTINATION_NAME]: destination,
          [MESSAGING_MESSAGE_ID]: messageId,
          ...(attempt === undefined ? {} : { [QUEUEBOX_ATTEMPT]: attempt }),
        },
      },
      parent,
    );
    return new OtelMessageSpan(otel, span, otel.trace.setSpan(parent, span));
  }
}

class OtelMessageSpan implements MessageSpan {
  private ended = false;

  constructor(
    private readonly otel: OpenTelemetryApi,
    private readonly span: Span,
    private readonly context: Context,
  ) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    return this.otel.context.with(this.context, work);
  }

  inject(headers: Record<string, string>): Record<string, string> {
    this.otel.propagation.inject(this.context, headers);
    return headers;
  }

  recordError(error: unknown): void {
    if (this.ended) return;
    this.span.recordException(error instanceof Error ? error : String(error));
    this.span.setStatus({
      code: this.otel.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.name : undefined,
    });
  }

  end(outcome: SpanOutcome, error?: unknown): void {
    if (this.ended) return;
    if (error !== undefined) this.recordError(error);
    this.ended = true;
    this.span.setAttribute(QUEUEBOX_OUTCOME, outcome);
    this.span.end();
  }
}

/** The tracer while an SDK records spans; undefined otherwise (checked by `probeTracing`). */
let current: MessagingTracer | undefined;
let probed = false;

/**
 * Checks once whether an OpenTelemetry SDK is registered. QueueBox calls it when its module
 * initializes (register the SDK before creating the Nest application, as OpenTelemetry's
 * instrumentations require anyway). Without the API package, or with only the no-op provider,
 * every later `messagingTracer()` returns undefined and no span work happens per message.
 */
export function probeTracing(): void {
  const otel = openTelemetry();
  current = otel && recording(otel) ? new MessagingTracer(otel) : undefined;
  probed = true;
}

/** The messaging tracer, or undefined when no SDK records spans (one variable read per message). */
export function messagingTracer(): MessagingTracer | undefined {
  if (!probed) probeTracing();
  return current;
}

/**
 * Whether an SDK records spans: with only the API installed, the global provider is a proxy
 * whose delegate is the no-op provider, and a span would cost per message for nothing.
 */
function recording(otel: OpenTelemetryApi): boolean {
  const provider = otel.trace.getTracerProvider() as { getDelegate?: () => object };
  const delegate = provider.getDelegate ? provider.getDelegate() : provider;
  return delegate.constructor.name !== 'NoopTracerProvider';
}

/**
 * Runs a message's work, which returns how it ended (and records a failure's error on the span
 * itself), and ends `span` with that outcome; a thrown error ends it `failed`. The work returns
 * a string, so the untraced path allocates nothing for tracing.
 */
export async function endSpanWith(span: MessageSpan, work: () => Promise<SpanOutcome>): Promise<void> {
  let outcome: SpanOutcome = 'failed';
  try {
    outcome = await work();
  } catch (error) {
    span.recordError(error);
    throw error;
  } finally {
    span.end(outcome);
  }
}
