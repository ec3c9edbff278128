import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver } from '../../fixtures/http-receiver.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { inTrace, installTestTracing } from '../../fixtures/otel.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describeWithDatabase('outbox: W3C trace context from enqueue to publish', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;
  let uninstall: () => void;

  beforeAll(async () => {
    uninstall = installTestTracing();
    const url = await receiver.start();
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url } },
      outbox: { pollIntervalMs: 50 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
    uninstall?.();
  });

  it('stores the active trace context with the message and sends it as traceparent', async () => {
    const { id } = await inTrace(TRACE_ID, () =>
      app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } }),
    );
    const row = (await outboxRows(app.dataSource, schema)).find((candidate) => candidate.id === id)!;
    expect(row.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    await receiver.waitFor(() => receiver.requests.length === 1);
    expect(receiver.requests[0].headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-`));
  });

  it('stores no trace context outside a trace', async () => {
    const { id } = await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 2 } });
    const row = (await outboxRows(app.dataSource, schema)).find((candidate) => candidate.id === id)!;
    expect(row.headers).toEqual({});
  });
});
