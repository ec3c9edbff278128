import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DeadLetterService, InboxService, OutboxService, QueueBoxAdmin } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/*
 * The dead-letter methods of OutboxService, InboxService and QueueBoxAdmin are deprecated in
 * favour of DeadLetterService: each still works, and warns once per process. Its own file: the
 * "once" is per process (per test file under Vitest), so no other spec's call may come first.
 */
describeWithDatabase('deprecated dead-letter methods', () => {
  let schema: string;
  let db: DataSource;
  const apps: TestApp[] = [];
  const start = async () => {
    const app = await startQueueBoxApp(
      schema,
      { workers: { enabled: false }, destinations: { sink: { type: 'custom', publisher: RecordingPublisher } } },
      [RecordingPublisher],
    );
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema, 2);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await Promise.all(apps.map((app) => app.close()));
    await db?.destroy();
  });

  it('still work, each warning once per process with its replacement, even across applications', async () => {
    const database = testDatabase();
    const dead = () => ({ state: 'dead' as const, lastError: 'HTTP 503', finishedAgoMs: 0 });
    const [o1, o2, o3, o4] = [
      await database.insertOutboxRow(db, schema, { destination: 'sink', ...dead() }),
      await database.insertOutboxRow(db, schema, { destination: 'sink', ...dead() }),
      await database.insertOutboxRow(db, schema, { destination: 'sink', ...dead() }),
      await database.insertOutboxRow(db, schema, { destination: 'sink', ...dead() }),
    ];
    const [i1, i2] = [
      await database.insertInboxRow(db, schema, { source: 'billing', idempotencyKey: 'i1', ...dead() }),
      await database.insertInboxRow(db, schema, { source: 'billing', idempotencyKey: 'i2', ...dead() }),
    ];
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const first = await start();
    const outbox = first.app.get(OutboxService);
    const inbox = first.app.get(InboxService);
    const admin = first.app.get(QueueBoxAdmin);

    // Each call twice: the same answer as before the deprecation, in the old shapes.
    for (let call = 0; call < 2; call++) {
      expect((await outbox.listDead({ limit: 10 })).map((row) => row.id)).toEqual([o1, o2, o3, o4]);
      expect((await inbox.listDead()).map((row) => row.id)).toEqual([i1, i2]);
      expect((await admin.listDead('outbox', { limit: 3 })).next).toBe(o3);
      expect(await admin.inspectDead('inbox', i1)).toMatchObject({ table: 'inbox', id: i1, idempotencyKey: 'i1' });
      expect(await admin.rowStates('outbox', [o1])).toEqual([{ id: o1, state: 'dead', attempts: 1 }]);
    }
    expect(await outbox.replayDead([o1, '999999'])).toEqual([o1]);
    expect(await outbox.replayDead([o1])).toEqual([]);
    expect(await inbox.replayDead([i1])).toEqual([i1]);
    expect(await inbox.replayDead([])).toEqual([]);
    expect(await admin.replayDead('outbox', { ids: [o2] })).toEqual({ count: 1, chunks: 1, ids: [o2] });
    expect(await admin.replayDead('outbox', { filter: { destination: 'sink' } })).toEqual({ count: 2, chunks: 2 });
    expect(await admin.discardDead('inbox', { ids: [i2] })).toEqual({ count: 1, chunks: 1, ids: [i2] });
    expect(await admin.discardDead('inbox', { filter: {} })).toEqual({ count: 0, chunks: 1 });
    await expect(outbox.listDead({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'limit' });
    expect(await database.countByState(db, schema, 'outbox')).toEqual({ pending: 4 });
    expect(await database.countByState(db, schema, 'inbox')).toEqual({ pending: 1 });

    // A second application in the same process, and the new service: no more warnings.
    const second = await start();
    await second.app.get(OutboxService).listDead();
    await second.app.get(QueueBoxAdmin).discardDead('outbox', { ids: [o1] });
    await second.app.get(DeadLetterService).list('inbox');

    const warnings = warn.mock.calls
      .map(([message]) => String(message))
      .filter((message) => message.includes('is deprecated'));
    expect(warnings.sort()).toEqual(
      [
        ['OutboxService.listDead', "DeadLetterService.list('outbox', query)"],
        ['OutboxService.replayDead', "DeadLetterService.replay('outbox', { ids })"],
        ['InboxService.listDead', "DeadLetterService.list('inbox', query)"],
        ['InboxService.replayDead', "DeadLetterService.replay('inbox', { ids })"],
        ['QueueBoxAdmin.listDead', 'DeadLetterService.list(table, query)'],
        ['QueueBoxAdmin.inspectDead', 'DeadLetterService.inspect(table, id, options)'],
        ['QueueBoxAdmin.rowStates', 'DeadLetterService.rowStates(table, ids)'],
        ['QueueBoxAdmin.replayDead', 'DeadLetterService.replay(table, selection, options)'],
        ['QueueBoxAdmin.discardDead', 'DeadLetterService.discard(table, selection, options)'],
      ]
        .map(
          ([method, replacement]) =>
            `${method}() is deprecated and will be removed in the next major version: use ${replacement} instead. (Logged once per process.)`,
        )
        .sort(),
    );
  });
});
