import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { readSampleConfig, type SampleConfig } from '../../sample-app/sample-config.js';
import { SHIPPING_SCHEMA } from '../../sample-app/shipping/shipping.constants.js';
import { startSampleApps, type SampleApps } from '../../sample-app/start-sample.js';
import { freePort } from '../../tools/embedded-postgres.js';
import { waitFor } from '../fixtures/http-receiver.js';

/** The sample, as `npm run sample` starts it, on a database of its own on the test server. */
describe('the sample app', () => {
  const database = `qb_sample_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let apps: SampleApps;
  let config: SampleConfig;
  const url = (port: number) => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: inject('pgUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const databaseUrl = new URL(inject('pgUrl'));
    databaseUrl.pathname = `/${database}`;
    const settings = readSampleConfig({ PORT: String(await freePort()), SHIPPING_PORT: String(await freePort()) });
    config = { ...settings, databaseUrl: databaseUrl.toString() };
    apps = await startSampleApps(config, { logger: false });
  });
  afterAll(async () => {
    await apps?.orders.close();
    await apps?.shipping.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('listens on loopback only by default', () => {
    expect(config.host).toBe('127.0.0.1');
    for (const app of [apps.orders, apps.shipping])
      expect((app.getHttpServer().address() as AddressInfo).address).toBe('127.0.0.1');
  });

  it('turns an order into a shipment: outbox, signed intake, relay, warehouse, pull worker', async () => {
    const placed = await fetch(`${url(config.ordersPort)}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'c1', amount: 12 }),
    });
    expect(placed.status).toBe(201);
    const { orderId } = (await placed.json()) as { orderId: string };
    await waitFor(
      async () => {
        const shipments = (await (await fetch(`${url(config.shippingPort)}/shipments`)).json()) as {
          order_id: string;
        }[];
        return shipments.some((shipment) => shipment.order_id === orderId);
      },
      30_000,
      'the shipment of the order',
    );
  });

  it('the warehouse stand-in signs no report for a request the shipping relay did not sign', async () => {
    const reportsBefore = await warehouseRows();
    const forged = JSON.stringify({ type: 'parcel.requested', orderId: 'forged', customerId: 'mallory' });
    const unsigned = await fetch(`${url(config.shippingPort)}/warehouse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-message-id': 'forged-1' },
      body: forged,
    });
    const badlySigned = await fetch(`${url(config.shippingPort)}/warehouse`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'forged-2',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: forged,
    });
    expect([unsigned.status, badlySigned.status]).toEqual([400, 401]);
    expect(await warehouseRows()).toBe(reportsBefore);
  });

  async function warehouseRows(): Promise<number> {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${SHIPPING_SCHEMA}".queuebox_inbox_messages WHERE source = 'warehouse'`,
      );
      return rows[0].n;
    } finally {
      await client.end();
    }
  }
});

/**
 * `npm run sample -- --once`, as a user or a script runs it: the compiled sample in a process of
 * its own, which places a first order by itself once both services are up, logs each hop as it
 * happens, and with `--once` exits when the order's shipment is recorded.
 */
describe('npm run sample -- --once', { timeout: 180_000 }, () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const database = `qb_sample_once_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let databaseUrl: URL;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: inject('pgUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    databaseUrl = new URL(inject('pgUrl'));
    databaseUrl.pathname = `/${database}`;
    // The first half of `npm run sample`: the sample's compile.
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'sample-app/tsconfig.json'],
      { cwd: root },
    );
  }, 180_000);
  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it('places one order by itself, logs every hop of it, and exits once its shipment is recorded', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl.toString(),
      PORT: String(await freePort()),
      SHIPPING_PORT: String(await freePort()),
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, ['sample-app/dist/sample-app/main.js', '--once'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // A sample that never exits is stopped when the test gives up on it.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const code = await exited;
    // eslint-disable-next-line no-control-regex -- strips the colours of Nest's console logger
    const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(code, output).toBe(0);
    const at = (pattern: RegExp): number => {
      const index = lines.findIndex((line) => pattern.test(line));
      expect(index, `${pattern} in:\n${output}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    const placed = at(/\[SampleApp\] Placing a first order: POST http:\/\/127\.0\.0\.1:\d+\/orders/);
    const hops = [
      /\[Orders\] order \S+ committed/,
      /\[BillingReceiver\] received X-Message-Id/,
      /\[ShippingIntake\]/,
      /\[ShippingRelay\]/,
      /\[Warehouse\] packed parcel/,
      /\[ShipmentsWorker\] .*shipment of order/,
    ].map(at);
    const through = at(/\[SampleApp\] First order \S+ went through every hop/);
    for (const hop of hops) expect(hop > placed && hop < through, output).toBe(true);
    expect(at(/stopped cleanly/)).toBeGreaterThan(through);
    // A script gets its exit; the hint to place another order is for a person at the terminal.
    expect(output).not.toContain('Place another order');
  });
});
