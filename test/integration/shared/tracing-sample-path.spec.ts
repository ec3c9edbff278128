import { Injectable } from '@nestjs/common';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type InboxMessage, OutboxService, PullWorker, PullWorkerHost } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { installTestSdk } from '../../fixtures/otel.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** The trace id each pulled message's handler ran in, by attempt. */
const handled: { traceId?: string; attempt: number }[] = [];

/** Fails its first attempt (an error the process span records), succeeds on the second. */
@PullWorker('from-b', {
  leaseMs: 10_000,
  pollIntervalMs: 50,
  backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 'none' },
})
@Injectable()
class FromBWorker extends PullWorkerHost {
  async handle(message: InboxMessage): Promise<void> {
    handled.push({ traceId: trace.getSpanContext(context.active())?.traceId, attempt: message.attempt });
    if (message.attempt === 1) throw new Error('first attempt fails');
  }
}

/**
 * The sample path: A's outbox publishes over HTTP to B's intake, B's relay forwards into B's
 * outbox, which publishes to C's intake, where a pull worker handles it: one trace throughout.
 */
describeWithDatabase('tracing: the messaging conventions across outbox → HTTP intake → relay → pull', () => {
  let a: TestApp;
  let b: TestApp;
  let c: TestApp;
  let exporter: InMemorySpanExporter;
  let uninstall: () => Promise<void>;

  beforeAll(async () => {
    ({ exporter, uninstall } = installTestSdk());
    c = await startQueueBoxApp(
      await createTestSchema(),
      { intake: { path: 'inbox' }, inbox: { sources: { 'from-b': { unsigned: true } } } },
      { listen: true, providers: [FromBWorker] },
    );
    b = await startQueueBoxApp(
      await createTestSchema(),
      {
        intake: { path: 'inbox' },
        destinations: { c: { type: 'http', url: `${c.url}/inbox/from-b` } },
        inbox: {
          sources: { 'from-a': { unsigned: true } },
          relay: { routes: { 'from-a': { destination: 'c' } }, pollIntervalMs: 50 },
        },
        outbox: { pollIntervalMs: 50 },
      },
      { listen: true },
    );
    a = await startQueueBoxApp(await createTestSchema(), {
      destinations: { b: { type: 'http', url: `${b.url}/inbox/from-a` } },
      outbox: { pollIntervalMs: 50 },
    });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await c?.close();
    await uninstall?.();
  });

  it('creates at enqueue in the caller’s trace, sends linked to it, and processes as a consumer continuing the sender', async () => {
    const tracer = trace.getTracer('test');
    const caller = tracer.startSpan('place order');
    const { messageId } = await context.with(trace.setSpan(context.active(), caller), () =>
      a.app.get(OutboxService).enqueue({ destination: 'b', key: 'order-1', payload: { n: 1 } }),
    );
    caller.end();
    // The second attempt's process span ends once its completion committed.
    await waitFor(() => exporter.getFinishedSpans().filter((span) => span.name === 'process from-b').length === 2);
    const spans = exporter.getFinishedSpans();
    const traceId = caller.spanContext().traceId;
    expect(handled.map((run) => run.traceId)).toEqual([traceId, traceId]);
    const byName = (name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
    const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
    const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

    const [createB] = byName('create b');
    expect(createB.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(createB)).toBe(caller.spanContext().spanId);
    expect(createB.attributes).toMatchObject({
      'messaging.system': 'queuebox',
      'messaging.operation.type': 'create',
      'messaging.operation.name': 'enqueue',
      'messaging.destination.name': 'b',
      'messaging.message.id': messageId,
      'queuebox.outcome': 'created',
    });

    const [sendB] = byName('send b');
    expect(sendB.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(sendB)).toBe(idOf(createB));
    expect(sendB.links.map((link) => link.context.spanId)).toEqual([idOf(createB)]);
    expect(sendB.attributes).toMatchObject({
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.message.id': messageId,
      'queuebox.attempt': 1,
      'queuebox.outcome': 'sent',
    });

    const [relay] = byName('process from-a');
    expect(relay.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(relay)).toBe(idOf(sendB));
    expect(relay.links.map((link) => link.context.spanId)).toEqual([idOf(sendB)]);
    expect(relay.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'relay',
      'messaging.destination.name': 'from-a',
      'messaging.message.id': messageId,
      'queuebox.outcome': 'processed',
    });

    const [createC] = byName('create c');
    expect(parentOf(createC)).toBe(idOf(relay));
    const [sendC] = byName('send c');
    expect(parentOf(sendC)).toBe(idOf(createC));

    const pulls = byName('process from-b').sort(
      (p, q) => Number(p.attributes['queuebox.attempt']) - Number(q.attributes['queuebox.attempt']),
    );
    expect(
      pulls.map((span) => [
        span.kind,
        parentOf(span),
        span.attributes['messaging.operation.name'],
        span.attributes['queuebox.attempt'],
        span.attributes['queuebox.outcome'],
      ]),
    ).toEqual([
      [SpanKind.CONSUMER, idOf(sendC), 'pull', 1, 'retried'],
      [SpanKind.CONSUMER, idOf(sendC), 'pull', 2, 'processed'],
    ]);
    // The failed attempt's error is recorded, with the span's status.
    expect(pulls[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(pulls[0].events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([
      ['exception', 'first attempt fails'],
    ]);
    expect(pulls[1].status.code).toBe(SpanStatusCode.UNSET);
    // Every QueueBox span of the path is in the caller's trace.
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
  });
});
