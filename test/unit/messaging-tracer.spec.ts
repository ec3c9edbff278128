import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { messagingTracer, probeTracing } from '../../lib/shared/tracing/messaging-tracer.js';

describe('messaging tracer probe', () => {
  afterEach(() => {
    trace.disable();
    probeTracing();
  });

  it('is off with only the API installed (the no-op provider): no span work per message', () => {
    probeTracing();
    expect(messagingTracer()).toBeUndefined();
  });

  it('is on once an SDK provider is registered, and its spans carry the messaging attributes', () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    probeTracing();
    const span = messagingTracer()!.send('billing', 'm-1', 3, {});
    span.end('dead', new Error('gone'));
    span.end('sent');
    const [finished] = exporter.getFinishedSpans();
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    expect(finished.name).toBe('send billing');
    expect(finished.attributes).toEqual({
      'messaging.system': 'queuebox',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': 'billing',
      'messaging.message.id': 'm-1',
      'queuebox.attempt': 3,
      'queuebox.outcome': 'dead',
    });
    expect(finished.status.code).toBe(2);
  });
});
