import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, openDataSource } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowsNotInState } from '../../fixtures/inbox-rows.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const KEYS = 50;
const PER_KEY = 8;

describeWithDatabase('outbox: three replicas, 50 keys, random publish failures', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let schema: string;
  let monitor: DataSource;
  const violations: string[] = [];
  const inFlightByKey = new Map<string, number>();
  const deliveredByKey = new Map<string, number[]>();
  let processing: ProcessingMonitor;

  beforeAll(async () => {
    const url = await receiver.start();
    receiver.onRequest = (request) => {
      const key = String(request.headers['x-queuebox-key']);
      const now = (inFlightByKey.get(key) ?? 0) + 1;
      inFlightByKey.set(key, now);
      if (now > 1) violations.push(`receiver saw ${now} requests of key ${key} at once`);
    };
    // One publish in five fails with a 500; replies take 0-15 ms.
    receiver.reply = () => ({ status: Math.random() < 0.2 ? 500 : 200, delayMs: Math.floor(Math.random() * 15) });
    receiver.onReplied = (request, reply) => {
      const key = String(request.headers['x-queuebox-key']);
      inFlightByKey.set(key, (inFlightByKey.get(key) ?? 1) - 1);
      if (reply.status === 200) {
        const list = deliveredByKey.get(key) ?? [];
        list.push(JSON.parse(request.body).seq);
        deliveredByKey.set(key, list);
      }
    };
    schema = await createTestSchema();
    for (let i = 0; i < 3; i++) {
      apps.push(
        await startQueueBoxApp(schema, {
          destinations: { sink: { type: 'http', url: `${url}/sink` } },
          outbox: {
            pollIntervalMs: 100,
            batchSize: 10,
            concurrency: 20,
            maxAttempts: 1000,
            backoff: { initialDelayMs: 5, maxDelayMs: 40 },
          },
        }),
      );
    }
    monitor = await openDataSource(schema, 2);
    processing = new ProcessingMonitor(monitor, schema, 'outbox');
  });
  afterAll(async () => {
    await processing?.stop();
    await Promise.all(apps.map((app) => app.close()));
    await monitor?.destroy();
    await receiver.stop();
  });

  it('sends every message, in enqueue order per key, never two of a key in flight', async () => {
    // Each key's messages are enqueued in order (one transaction each); keys interleave across replicas.
    await Promise.all(
      Array.from({ length: KEYS }, async (_, k) => {
        const app = apps[k % apps.length];
        const outbox = app.app.get(OutboxService);
        for (let seq = 0; seq < PER_KEY; seq++) {
          await app.dataSource.transaction((manager) =>
            outbox.enqueue({ destination: 'sink', key: `key-${k}`, payload: { seq } }, { manager }),
          );
        }
      }),
    );
    await waitFor(
      async () => (await rowsNotInState(monitor, schema, 'outbox', 'sent')) === 0,
      60_000,
      'every message sent',
    );
    await processing.stop();
    expect(processing.samples).toBeGreaterThan(0);
    expect(processing.violations).toEqual([]);
    expect(violations).toEqual([]);
    for (let k = 0; k < KEYS; k++) {
      expect(deliveredByKey.get(`key-${k}`), `key-${k}`).toEqual(Array.from({ length: PER_KEY }, (_, seq) => seq));
    }
    const failures = receiver.requests.length - KEYS * PER_KEY;
    expect(failures).toBeGreaterThan(0);
  });
});
