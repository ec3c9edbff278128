import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const handled: string[] = [];

@PullWorker('pulled', { pollIntervalMs: 50, maxAttempts: 2 })
@Injectable()
class RecordingWorker extends PullWorkerHost {
  async handle(message: InboxMessage): Promise<void> {
    handled.push(message.idempotencyKey);
  }
}

/**
 * A row claimed more often than `maxAttempts` allows without an outcome (its workers crashed, or
 * lost the claim, every time) is dead-lettered at its next claim, and never handed to the
 * publisher, the relay's forward or the pull handler again.
 */
describeWithDatabase('claims past maxAttempts, in all three workers', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'custom', publisher: RecordingPublisher } },
        outbox: { pollIntervalMs: 50, maxAttempts: 2 },
        inbox: { relay: { routes: { relayed: { destination: 'sink' } }, pollIntervalMs: 50, maxAttempts: 2 } },
      },
      [RecordingPublisher, RecordingWorker],
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('dead-letters the row with its reason, and runs none of its work', async () => {
    // Two claims already counted, no outcome: the next claim is the third.
    const database = testDatabase();
    await database.insertOutboxRow(app.dataSource, schema, { destination: 'sink', payload: '"crashed"', attempts: 2 });
    await database.insertInboxRow(app.dataSource, schema, {
      source: 'relayed',
      idempotencyKey: 'r-crashed',
      attempts: 2,
    });
    await database.insertInboxRow(app.dataSource, schema, {
      source: 'pulled',
      idempotencyKey: 'p-crashed',
      attempts: 2,
    });
    const states = async () => [
      ...(await outboxRows(app.dataSource, schema)).map(({ state, attempts, last_error }) => ({
        part: 'outbox',
        state,
        attempts,
        last_error,
      })),
      ...(await inboxRows(app.dataSource, schema))
        .map(({ source, state, attempts, last_error }) => ({ part: source, state, attempts, last_error }))
        .sort((p, q) => p.part.localeCompare(q.part)),
    ];
    await waitFor(async () => (await states()).every((row) => row.state === 'dead'), 10_000, 'all three dead');
    const reason = 'Error: maximum attempts reached without an outcome';
    expect(await states()).toEqual([
      { part: 'outbox', state: 'dead', attempts: 3, last_error: reason },
      { part: 'pulled', state: 'dead', attempts: 3, last_error: reason },
      { part: 'relayed', state: 'dead', attempts: 3, last_error: reason },
    ]);
    expect(app.app.get(RecordingPublisher).published).toEqual([]);
    expect(handled).toEqual([]);
    expect((await outboxRows(app.dataSource, schema)).filter((row) => row.payload !== '"crashed"')).toEqual([]);
  });
});
