import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  DeadLetterService,
  InboxService,
  InvalidArgumentError,
  OutboxService,
  PublishFailedError,
  PullWorker,
  PullWorkerHost,
  UnknownDestinationError,
  type InboxMessage,
} from '../../../lib/index.js';
import {
  drain,
  DrainTimeoutError,
  failNextPublishes,
  RecordingPublisher,
} from '../../../lib/surfaces/testing/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** A handler the test holds until it lets it go: work that stays in flight, deterministically. */
const gate = { entered: 0, release: (): void => undefined };

@PullWorker('held', { leaseMs: 60_000 })
@Injectable()
class HeldWorker extends PullWorkerHost {
  async handle(): Promise<void> {
    gate.entered += 1;
    await new Promise<void>((resolve) => (gate.release = resolve));
  }
}

@PullWorker('fast')
@Injectable()
class FastWorker extends PullWorkerHost {
  readonly handled: string[] = [];
  async handle(message: InboxMessage): Promise<void> {
    this.handled.push(message.idempotencyKey);
  }
}

/**
 * queuebox/testing against the database: `drain()` waits for the outbox, the relay and the pull
 * workers (and reports what is left when it gives up), `failNextPublishes()` fails exactly the
 * next N publishes of a destination of any type.
 */
describeWithDatabase('the testing kit: drain() and failNextPublishes()', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: {
          sink: { type: 'custom', publisher: RecordingPublisher },
          other: { type: 'custom', publisher: RecordingPublisher },
        },
        // Long poll intervals: without drain()'s wake-ups nothing would move within a test.
        outbox: {
          pollIntervalMs: 60_000,
          notify: { enabled: false },
          backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 'none' },
        },
        inbox: { relay: { routes: { relayed: { destination: 'sink' } }, pollIntervalMs: 60_000 } },
      },
      [RecordingPublisher, HeldWorker, FastWorker],
    );
  });
  afterAll(async () => {
    gate.release();
    await app?.close();
    await testDatabase().dropSchema(schema);
  });

  const recorder = (): RecordingPublisher => app.app.get(RecordingPublisher);

  it('drains the outbox, the relay and a pull worker', async () => {
    recorder().clear();
    const outbox = app.app.get(OutboxService);
    const inbox = app.app.get(InboxService);
    await outbox.enqueue([1, 2, 3].map((n) => ({ destination: 'sink', key: 'k', payload: { n } })));
    await inbox.receive({ source: 'relayed', idempotencyKey: 'r1', payload: { n: 4 } });
    await inbox.receive({ source: 'fast', idempotencyKey: 'f1', payload: {} });
    await drain(app.app);
    // Key k in order; the relayed message has no key, so it may come anywhere among them.
    const sink = recorder().published.filter((message) => message.destination === 'sink');
    expect(sink.filter((message) => message.key === 'k').map((message) => JSON.parse(message.payload))).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    expect(recorder().payloads('sink')).toHaveLength(4);
    expect(recorder().payloads('sink')).toContainEqual({ n: 4 });
    expect(app.app.get(FastWorker).handled).toEqual(['f1']);
    expect(await testDatabase().countByState(app.dataSource, schema, 'outbox')).toEqual({ sent: 4 });
  });

  it('gives up with a DrainTimeoutError that names what is still in flight, and drains once it finishes', async () => {
    await app.app.get(InboxService).receive({ source: 'held', idempotencyKey: 'h1', payload: {} });
    await waitFor(() => gate.entered === 1, 10_000, 'the held handler to start');
    const error = await drain(app.app, { timeoutMs: 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DrainTimeoutError);
    expect((error as DrainTimeoutError).code).toBe('DRAIN_TIMEOUT');
    expect((error as DrainTimeoutError).pending).toEqual([
      { table: 'inbox', stream: 'held', due: 0, inFlight: 1, scheduled: 0, nextDueInMs: undefined },
    ]);
    expect((error as Error).message).toContain('inbox source "held": 1 in flight');
    gate.release();
    await drain(app.app);
  });

  it('fails exactly the next N publishes of a destination, then lets them through', async () => {
    recorder().clear();
    const faults = failNextPublishes(app.app, 'sink', 2);
    await app.app.get(OutboxService).enqueue({ destination: 'sink', key: 'f', payload: { n: 5 } });
    await drain(app.app, { includeScheduled: true });
    expect(faults).toMatchObject({ failed: 2, remaining: 0 });
    expect(recorder().published.map((message) => message.attempt)).toEqual([3]);
    const [row] = (await testDatabase().outboxRows(app.dataSource, schema)).filter((r) => r.ordering_key === 'f');
    expect(row.last_error).toContain('injected failure 2 of 2 for destination "sink"');
  });

  it('takes the failure to throw: a non-retryable one dead-letters the row', async () => {
    recorder().clear();
    failNextPublishes(app.app, 'other', 1, new PublishFailedError('rejected by the test', { retryable: false }));
    await app.app.get(OutboxService).enqueue({ destination: 'other', key: 'x', payload: {} });
    await drain(app.app, { includeScheduled: true });
    expect(recorder().published).toEqual([]);
    expect((await app.app.get(DeadLetterService).list('outbox')).items.map((dead) => dead.destination)).toEqual([
      'other',
    ]);
  });

  it('refuses an unknown destination and a count that is not a positive integer', () => {
    expect(() => failNextPublishes(app.app, 'nowhere', 1)).toThrow(UnknownDestinationError);
    expect(() => failNextPublishes(app.app, 'sink', 0)).toThrow(InvalidArgumentError);
  });
});
