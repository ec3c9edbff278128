import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { OutboxService } from '../../../lib/index.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { HttpReceiver } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/**
 * The database drops every connection of an instance (a failover, a proxy restart): nothing is
 * lost, the loops recover by themselves, and the cross-replica wake-up comes back.
 */
describe('outbox: every database connection of the instances is killed', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let schema: string;
  let admin: DataSource;
  const applicationName = `qb-chaos-${Math.random().toString(16).slice(2, 10)}`;

  beforeAll(async () => {
    const url = await receiver.start();
    schema = await createTestSchema();
    admin = await openDataSource(schema, 2);
    const options = { destinations: { sink: { type: 'http' as const, url } }, outbox: { pollIntervalMs: 60_000 } };
    // A worker replica and an API-only replica: after the kill, only a re-established LISTEN
    // (or the minute-long poll) can get the API replica's message out quickly.
    apps.push(await startQueueBoxApp(schema, options, { applicationName }));
    apps.push(await startQueueBoxApp(schema, { ...options, workers: { enabled: false } }, { applicationName }));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await admin?.destroy();
    await receiver.stop();
  });

  const killConnections = async () =>
    (
      await admin.query(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1`,
        [applicationName],
      )
    )[0].n as number;

  it('keeps delivering after the kill: committed rows are sent, new enqueues wake the worker replica', async () => {
    const [worker, api] = apps;
    await worker.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 'before' } });
    await receiver.waitFor(() => receiver.requests.length === 1, 5_000);

    expect(await killConnections()).toBeGreaterThan(0);
    // The first statements after the kill may fail on dead pooled connections; the pool replaces them.
    const sent = [];
    for (let attempt = 0; sent.length < 3 && attempt < 50; attempt++) {
      try {
        sent.push(await api.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: sent.length } }));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(sent).toHaveLength(3);
    // The listener reconnects within seconds and catches up on what it may have missed.
    await receiver.waitFor(() => receiver.requests.length === 4, 15_000);
    const ids = receiver.requests.slice(1).map((request) => request.headers['x-message-id']);
    expect(ids.sort()).toEqual(sent.map((message) => message.messageId).sort());
  });
});
