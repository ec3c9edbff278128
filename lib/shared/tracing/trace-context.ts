import { createRequire } from 'node:module';

/** The `@opentelemetry/api` module's type; the package itself is an optional peer. */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');

let api: OpenTelemetryApi | null | undefined;

/**
 * `@opentelemetry/api` when the application has it (an optional peer), loaded on first use and
 * synchronously: QueueBox has no top-level await. Without an SDK registered its calls do nothing.
 */
export function openTelemetry(): OpenTelemetryApi | null {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetryApi;
    } catch {
      api = null;
    }
  }
  return api;
}

/**
 * Adds the active W3C trace context (`traceparent`, `tracestate`) to headers stored with a
 * message. Used when no SDK records spans: the caller's context (set by a propagating framework)
 * still travels with the message.
 */
export function injectTraceContext(headers: Record<string, string>): Record<string, string> {
  const otel = openTelemetry();
  if (otel) otel.propagation.inject(otel.context.active(), headers);
  return headers;
}
