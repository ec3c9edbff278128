import { createRequire } from 'node:module';

type OpenTelemetryApi = typeof import('@opentelemetry/api');

let api: OpenTelemetryApi | null | undefined;

/**
 * `@opentelemetry/api` when the application has it (an optional peer), loaded on first use and
 * synchronously: QueueBox has no top-level await. Without an SDK registered its calls do nothing.
 */
function openTelemetry(): OpenTelemetryApi | null {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetryApi;
    } catch {
      api = null;
    }
  }
  return api;
}

/** Adds the active W3C trace context (`traceparent`, `tracestate`) to headers stored with a message. */
export function injectTraceContext(headers: Record<string, string>): Record<string, string> {
  const otel = openTelemetry();
  if (otel) otel.propagation.inject(otel.context.active(), headers);
  return headers;
}

/**
 * Whether an SDK records spans: with only the API installed, the global provider is a proxy
 * whose delegate is the no-op provider, and a span would cost per message for nothing.
 */
function recording(otel: OpenTelemetryApi): boolean {
  const provider = otel.trace.getTracerProvider() as { getDelegate?: () => object };
  return provider.getDelegate?.().constructor.name !== 'NoopTracerProvider';
}

/**
 * Runs `work` in a span that continues the trace stored with a message; without OpenTelemetry,
 * or with no SDK registered, it just runs `work`.
 */
export async function withMessageSpan<T>(name: string, headers: Record<string, string>, attributes: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const otel = openTelemetry();
  if (!otel || !recording(otel)) return work();
  const parent = otel.propagation.extract(otel.context.active(), headers);
  const tracer = otel.trace.getTracer('queuebox');
  return tracer.startActiveSpan(name, { kind: otel.SpanKind.PRODUCER, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: otel.SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
