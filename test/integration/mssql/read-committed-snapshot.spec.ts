import { afterAll, expect, it, type TestContext } from 'vitest';
import type { DataSource } from 'typeorm';
import { InboxService, OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, openDataSource, sqlServerDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, rowsNotInState } from '../../fixtures/inbox-rows.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const KEYS = 6;
const PER_KEY = 8;

/**
 * contributing/testing-on-sql-server.md, "RCSI off and on": QueueBox supports
 * READ_COMMITTED_SNAPSHOT both off (locking reads: READPAST skips locked rows) and on (versioned
 * reads: READCOMMITTEDLOCK on the claim's candidates). Each mode runs on the URL's database when it
 * is in that mode, else on a database this spec creates; a mode that cannot be arranged (no CREATE
 * DATABASE permission) is skipped, saying so. The whole project can also run once per mode:
 * QUEUEBOX_MSSQL_URL on two databases.
 */
describeWithDatabase('SQL Server: READ_COMMITTED_SNAPSHOT off and on', () => {
  const created: string[] = [];

  afterAll(async () => {
    for (const name of created) await sqlServerDatabase().dropDatabase(name);
  });

  /** A database in the mode: undefined for the URL's own database. */
  async function arrange(rcsi: boolean, context: TestContext): Promise<string | undefined> {
    const server = sqlServerDatabase();
    if ((await server.readCommittedSnapshot()) === rcsi) return undefined;
    try {
      const name = await server.createDatabase(rcsi);
      created.push(name);
      return name;
    } catch (error) {
      const mode = rcsi ? 'ON' : 'OFF';
      context.skip(
        `RCSI ${mode} cannot be arranged: the URL's database has it ${rcsi ? 'OFF' : 'ON'}, and creating a second database failed (${String(error)}); run the project on a database with RCSI ${mode}`,
      );
    }
  }

  for (const rcsi of [false, true]) {
    it(`RCSI ${rcsi ? 'ON' : 'OFF'}: replicas never overlap claims, keep each key in order, and store one row per concurrent receive`, async (context) => {
      const database = await arrange(rcsi, context);
      const server = sqlServerDatabase();
      expect(await server.readCommittedSnapshot(database)).toBe(rcsi);
      const schema = await server.createSchema(database);

      const receiver = new HttpReceiver();
      const inFlight = new Map<string, number>();
      const violations: string[] = [];
      const delivered = new Map<string, number[]>();
      receiver.onRequest = (request) => {
        const key = String(request.headers['x-queuebox-key']);
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
        if (inFlight.get(key)! > 1) violations.push(`${inFlight.get(key)} requests of key ${key} at once`);
      };
      receiver.reply = () => ({ status: Math.random() < 0.2 ? 500 : 200, delayMs: Math.floor(Math.random() * 10) });
      receiver.onReplied = (request, reply) => {
        const key = String(request.headers['x-queuebox-key']);
        inFlight.set(key, inFlight.get(key)! - 1);
        if (reply.status === 200) delivered.set(key, [...(delivered.get(key) ?? []), JSON.parse(request.body).seq]);
      };
      const url = await receiver.start();
      const apps: TestApp[] = [];
      let monitorSource: DataSource | undefined;
      let monitor: ProcessingMonitor | undefined;
      try {
        const options = {
          destinations: { sink: { type: 'http' as const, url } },
          inbox: { sources: { orders: {} } },
          outbox: {
            pollIntervalMs: 50,
            batchSize: 10,
            concurrency: 10,
            maxAttempts: 1_000,
            backoff: { initialDelayMs: 5, maxDelayMs: 40 },
          },
        };
        for (let i = 0; i < 2; i++) apps.push(await startQueueBoxApp(schema, options, { database }));
        monitorSource = await openDataSource(schema, 2, { database });
        monitor = new ProcessingMonitor(monitorSource, schema, 'outbox');

        await Promise.all(
          Array.from({ length: KEYS }, async (_, k) => {
            for (let seq = 0; seq < PER_KEY; seq++) {
              const { app, dataSource } = apps[(k + seq) % apps.length];
              await dataSource.transaction((manager) =>
                app.get(OutboxService).enqueue({ destination: 'sink', key: `key-${k}`, payload: { seq } }, { manager }),
              );
            }
          }),
        );
        const receipts = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            apps[i % 2].app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'once', payload: { i } }),
          ),
        );
        await waitFor(
          async () => (await rowsNotInState(monitorSource!, schema, 'outbox', 'sent')) === 0,
          60_000,
          'every message sent',
        );
        await monitor.stop();

        expect(monitor.samples).toBeGreaterThan(0);
        expect(monitor.violations).toEqual([]);
        expect(violations).toEqual([]);
        for (let k = 0; k < KEYS; k++)
          expect(delivered.get(`key-${k}`), `key-${k}`).toEqual(Array.from({ length: PER_KEY }, (_, seq) => seq));
        expect(receipts.filter((receipt) => receipt.status === 'accepted')).toHaveLength(1);
        expect((await inboxRows(monitorSource, schema)).filter((row) => row.idempotency_key === 'once')).toHaveLength(
          1,
        );
      } finally {
        await monitor?.stop();
        await Promise.all(apps.map((app) => app.close()));
        await monitorSource?.destroy();
        await receiver.stop();
      }
    });
  }
});
