import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { createTestSchema } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
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
describe('claims past maxAttempts, in all three workers', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema(inject('pgUrl'));
    app = await startQueueBoxApp(
      inject('pgUrl'),
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
    await app.dataSource.query(
      `INSERT INTO "${schema}".queuebox_outbox_messages (message_id, destination, headers, payload, attempts) VALUES (gen_random_uuid(), 'sink', '{}', '"crashed"', 2)`,
    );
    await app.dataSource.query(
      `INSERT INTO "${schema}".queuebox_inbox_messages (source, idempotency_key, headers, payload, attempts) VALUES ('relayed', 'r-crashed', '{}', '1', 2), ('pulled', 'p-crashed', '{}', '1', 2)`,
    );
    const states = async () =>
      app.dataSource.query(
        `SELECT 'outbox' AS part, state, attempts, last_error FROM "${schema}".queuebox_outbox_messages
         UNION ALL SELECT source, state, attempts, last_error FROM "${schema}".queuebox_inbox_messages ORDER BY part`,
      );
    await waitFor(async () => (await states()).every((row: { state: string }) => row.state === 'dead'), 10_000, 'all three dead');
    const reason = 'Error: maximum attempts reached without an outcome';
    expect(await states()).toEqual([
      { part: 'outbox', state: 'dead', attempts: 3, last_error: reason },
      { part: 'pulled', state: 'dead', attempts: 3, last_error: reason },
      { part: 'relayed', state: 'dead', attempts: 3, last_error: reason },
    ]);
    expect(app.app.get(RecordingPublisher).published).toEqual([]);
    expect(handled).toEqual([]);
    const [{ n }] = await app.dataSource.query(`SELECT count(*)::int AS n FROM "${schema}".queuebox_outbox_messages WHERE payload <> '"crashed"'`);
    expect(n).toBe(0);
  });
});
