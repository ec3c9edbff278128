import { Injectable } from '@nestjs/common';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { InboxService, PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

let schema: string;
/** Handlers running now, the most seen at once, and the messages each call received. */
let running = 0;
let mostRunning = 0;
const handled: string[] = [];
/** Each running handler waits for its key here; the test lets it finish. */
const gates = new Map<string, () => void>();

@PullWorker('ahead', { concurrency: 2, claimAhead: 2, leaseMs: 5_000, pollIntervalMs: 50 })
@Injectable()
class GatedWorker extends PullWorkerHost {
  async handle(message: InboxMessage): Promise<void> {
    running += 1;
    mostRunning = Math.max(mostRunning, running);
    handled.push(message.idempotencyKey);
    try {
      await new Promise<void>((resolve) => gates.set(message.idempotencyKey, resolve));
    } finally {
      running -= 1;
    }
  }
}

const states = async (app: TestApp): Promise<Record<string, string>> =>
  Object.fromEntries((await inboxRows(app.dataSource, schema)).map((row) => [row.idempotency_key, row.state]));

const countIn = (rows: Record<string, string>, state: string): number =>
  Object.values(rows).filter((value) => value === state).length;

describeWithDatabase('pull workers claim ahead', () => {
  /** The worker app; undefined once a test closed it itself. */
  let app: TestApp | undefined;

  /** `count` messages received before the worker starts: its first claims find them all. */
  const startWith = async (count: number): Promise<TestApp> => {
    const receiver = await startQueueBoxApp(schema, { workers: { enabled: false } });
    try {
      const inbox = receiver.app.get(InboxService);
      for (let i = 0; i < count; i++) await inbox.receive({ source: 'ahead', idempotencyKey: `m${i}`, payload: {} });
    } finally {
      await receiver.close();
    }
    app = await startQueueBoxApp(schema, {}, [GatedWorker]);
    return app;
  };

  beforeEach(async () => {
    schema = await createTestSchema();
    running = 0;
    mostRunning = 0;
    handled.length = 0;
    gates.clear();
  });
  afterEach(async () => {
    for (const open of gates.values()) open();
    await app?.close();
  });

  it('holds claimAhead rows claimed beyond the running handlers, never runs more than concurrency, and hands each freed slot to the oldest waiting row', async () => {
    const worker = await startWith(6);
    // Two handlers run and two more rows are claimed (leased) while they wait for a slot.
    await waitFor(
      async () => handled.length === 2 && countIn(await states(worker), 'processing') === 4,
      10_000,
      '2 running + 2 claimed ahead',
    );
    // The two run at once: either may reach its handler first.
    expect([...handled].sort()).toEqual(['m0', 'm1']);
    expect(countIn(await states(worker), 'pending')).toBe(2);

    gates.get('m0')!();
    await waitFor(() => handled.length === 3, 10_000, 'the first waiting row starts');
    expect(handled[2]).toBe('m2');

    // Let everything through as it arrives.
    const drain = setInterval(() => {
      for (const open of gates.values()) open();
    }, 5);
    try {
      await waitFor(async () => countIn(await states(worker), 'processed') === 6, 10_000, 'all processed');
    } finally {
      clearInterval(drain);
    }
    expect(mostRunning).toBe(2);
    expect([...handled].sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('shutdown gives the rows claimed ahead back to pending unhandled, and lets the running handlers finish', async () => {
    const worker = await startWith(4);
    await waitFor(
      async () => handled.length === 2 && countIn(await states(worker), 'processing') === 4,
      10_000,
      '2 running + 2 claimed ahead',
    );
    const closing = worker.close();
    app = undefined;
    // The running handlers finish once shutdown began; the rows claimed ahead never reach a handler.
    await waitFor(
      async () => (await states(worker)).m2 === 'pending' && (await states(worker)).m3 === 'pending',
      10_000,
      'rows claimed ahead given back while the handlers still run',
    );
    for (const open of gates.values()) open();
    await closing;
    const check = await startQueueBoxApp(schema, { workers: { enabled: false } });
    try {
      const rows = await inboxRows(check.dataSource, schema);
      expect(rows.map((row) => [row.idempotency_key, row.state])).toEqual([
        ['m0', 'processed'],
        ['m1', 'processed'],
        ['m2', 'pending'],
        ['m3', 'pending'],
      ]);
      expect([...handled].sort()).toEqual(['m0', 'm1']);
    } finally {
      await check.close();
    }
  });
});
