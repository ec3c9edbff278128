import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  INBOX_MESSAGES_RECEIVED_TOTAL,
  InboxService,
  InvalidMessageError,
  PayloadTooLargeError,
  ReceiveRacedError,
  UnknownSourceError,
} from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { DeadLetterService } from '../../../lib/features/dead-letters/dead-letter.service.js';
import { StatementRunner } from '../../../lib/database/statement-runner.js';
import type { SqlDialect, SqlStatement } from '../../../lib/database/sql-dialect.interface.js';
import type { EntityManager } from 'typeorm';
import { SourceLabels } from '../../../lib/engine/metrics/source-labels.js';
import { QueueBoxMetrics } from '../../../lib/engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../../lib/config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS, QUEUEBOX_SQL_DIALECT } from '../../../lib/shared/queuebox.constants.js';
import { WakeUpHub } from '../../../lib/engine/wakeup/wake-up.hub.js';

describeWithDatabase('inbox: receive once per (source, idempotency key)', () => {
  let schema: string;
  let apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema();
    for (let i = 0; i < 2; i++) {
      apps.push(
        await startQueueBoxApp(schema, {
          workers: { enabled: false },
          inbox: { sources: { orders: {}, billing: {} }, maxPayloadBytes: 64 },
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  it('20 concurrent receives of one key, across two instances, store one row and report 19 duplicates', async () => {
    const duplicatesBefore = await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, {
      source: 'orders',
      outcome: 'duplicate',
    });
    const receipts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        apps[i % 2].app
          .get(InboxService)
          .receive({ source: 'orders', idempotencyKey: 'm-1', key: 'o-1', payload: { n: i } }),
      ),
    );
    const accepted = receipts.filter((receipt) => receipt.status === 'accepted');
    expect(accepted).toHaveLength(1);
    expect(receipts.filter((receipt) => receipt.status === 'duplicate')).toHaveLength(19);
    expect(new Set(receipts.map((receipt) => receipt.id))).toEqual(new Set([accepted[0].id]));
    const rows = (await inboxRows(apps[0].dataSource, schema)).filter((row) => row.idempotency_key === 'm-1');
    expect(rows).toHaveLength(1);
    expect(await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'orders', outcome: 'duplicate' })).toBe(
      duplicatesBefore + 19,
    );
  });

  it('the same key from another source is another message', async () => {
    const inbox = apps[0].app.get(InboxService);
    expect((await inbox.receive({ source: 'billing', idempotencyKey: 'm-1', payload: 1 })).status).toBe('accepted');
  });

  it('a receive inside a rolled-back transaction leaves nothing, and the key can be received again', async () => {
    const { app, dataSource } = apps[0];
    const inbox = app.get(InboxService);
    await expect(
      dataSource.transaction(async (manager) => {
        expect(
          (await inbox.receive({ source: 'orders', idempotencyKey: 'm-rollback', payload: 1 }, { manager })).status,
        ).toBe('accepted');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await inbox.receive({ source: 'orders', idempotencyKey: 'm-rollback', payload: 1 })).status).toBe(
      'accepted',
    );
  });

  it('refuses invalid messages with typed errors and writes nothing', async () => {
    const inbox = apps[0].app.get(InboxService);
    const before = (await inboxRows(apps[0].dataSource, schema)).length;
    await expect(inbox.receive({ source: 'orders', idempotencyKey: '', payload: 1 })).rejects.toMatchObject({
      field: 'idempotencyKey',
    });
    await expect(
      inbox.receive({ source: 'orders', idempotencyKey: 'k'.repeat(201), payload: 1 }),
    ).rejects.toBeInstanceOf(InvalidMessageError);
    await expect(inbox.receive({ source: 'nobody', idempotencyKey: 'k', payload: 1 })).rejects.toBeInstanceOf(
      UnknownSourceError,
    );
    await expect(
      inbox.receive({ source: 'orders', idempotencyKey: 'k', payload: 'x'.repeat(100) }),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(inbox.receive({ source: 'orders', idempotencyKey: 'k', key: '', payload: 1 })).rejects.toMatchObject({
      field: 'key',
    });
    // Control characters never reach the database (PostgreSQL refuses NUL in text, echoing the statement).
    await expect(inbox.receive({ source: 'orders', idempotencyKey: 'a\u0000b', payload: 1 })).rejects.toMatchObject({
      field: 'idempotencyKey',
    });
    await expect(inbox.receive({ source: 'ord\u0000ers', idempotencyKey: 'k', payload: 1 })).rejects.toMatchObject({
      field: 'source',
    });
    await expect(
      inbox.receive({ source: 'orders', idempotencyKey: 'k', key: 'line\nbreak', payload: 1 }),
    ).rejects.toMatchObject({ field: 'key' });
    await expect(
      inbox.receive({ source: 'orders', idempotencyKey: 'k', payload: 1, headers: { traceparent: 'x\u0000' } }),
    ).rejects.toMatchObject({ field: 'headers.traceparent' });
    expect(await inboxRows(apps[0].dataSource, schema)).toHaveLength(before);
  });

  it('a duplicate whose row is deleted before it is read back (retention) is stored anew, and counted once as accepted', async () => {
    const app = apps[0].app;
    const real = app.get<SqlDialect>(QUEUEBOX_SQL_DIALECT, { strict: false });
    // The read-back of the first duplicate finds the row gone: it deletes the row and returns nothing,
    // exactly what a retention sweep between the conflicting insert and the read would leave.
    let raced = false;
    const findInbox = (source: string, idempotencyKey: string): SqlStatement<string | undefined> => {
      if (raced) return real.findInbox(source, idempotencyKey);
      raced = true;
      return {
        ...testDatabase().deleteInboxRowReturningNothing(schema, source, idempotencyKey),
        decode: real.findInbox(source, idempotencyKey).decode,
      };
    };
    // The app's dialect, but for findInbox; every other method runs on the dialect itself.
    const racing = new Proxy(real, {
      get: (target, property) => {
        if (property === 'findInbox') return findInbox;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const inbox = inboxServiceOf(apps[0], { dialect: racing });
    await inbox.receive({ source: 'billing', idempotencyKey: 'swept', payload: 1 });
    const counts = async () => ({
      accepted: await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'billing', outcome: 'accepted' }),
      duplicate: await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'billing', outcome: 'duplicate' }),
    });
    const before = await counts();
    const receipt = await inbox.receive({ source: 'billing', idempotencyKey: 'swept', payload: 2 });
    expect(raced).toBe(true);
    expect(receipt.status).toBe('accepted');
    expect(await counts()).toEqual({ accepted: before.accepted + 1, duplicate: before.duplicate });
    const rows = (await inboxRows(apps[0].dataSource, schema)).filter((row) => row.idempotency_key === 'swept');
    expect(rows).toMatchObject([{ id: receipt.id, payload: '2' }]);
  });
  it('a receive whose conflicting row is swept away before every read-back stores nothing and throws ReceiveRacedError after 3 tries', async () => {
    const { dataSource } = apps[0];
    const dialect = apps[0].app.get<SqlDialect>(QUEUEBOX_SQL_DIALECT, { strict: false });
    const runner = apps[0].app.get(StatementRunner, { strict: false });
    const message = { source: 'billing', idempotencyKey: 'swept-thrice' };
    const findSql = dialect.findInbox(message.source, message.idempotencyKey).sql;
    const deleteRow = testDatabase().deleteInboxRowReturningNothing(schema, message.source, message.idempotencyKey);
    // Another replica stores the key's row before each insert of this receive (which then conflicts),
    // and a retention sweep deletes it before each read-back: real rows, real statements.
    let present = false;
    let inserts = 0;
    const racing = Object.assign(Object.create(runner) as StatementRunner, {
      run: async <Result>(statement: SqlStatement<Result>, manager?: EntityManager): Promise<Result> => {
        if (statement.sql === findSql) {
          await dataSource.query(deleteRow.sql, deleteRow.params);
          present = false;
        } else {
          inserts += 1;
          if (!present) await testDatabase().insertInboxRow(dataSource, schema, message);
          present = true;
        }
        return runner.run(statement, manager);
      },
    });
    const error = await inboxServiceOf(apps[0], { runner: racing })
      .receive({ ...message, payload: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReceiveRacedError);
    expect(error).toMatchObject({
      code: 'RECEIVE_RACED',
      source: 'billing',
      idempotencyKey: 'swept-thrice',
      attempts: 3,
    });
    expect(inserts).toBe(3);
    expect((await inboxRows(dataSource, schema)).filter((row) => row.idempotency_key === 'swept-thrice')).toEqual([]);
  });
});

/** An InboxService of `app`'s own parts, with `runner` or `dialect` in place of the app's. */
function inboxServiceOf(
  { app }: TestApp,
  { runner, dialect }: { runner?: StatementRunner; dialect?: SqlDialect },
): InboxService {
  return new InboxService(
    runner ?? app.get(StatementRunner, { strict: false }),
    dialect ?? app.get<SqlDialect>(QUEUEBOX_SQL_DIALECT, { strict: false }),
    app.get<ResolvedQueueBoxOptions>(QUEUEBOX_RESOLVED_OPTIONS),
    app.get(WakeUpHub, { strict: false }),
    app.get(QueueBoxMetrics, { strict: false }),
    app.get(SourceLabels, { strict: false }),
    app.get(DeadLetterService),
  );
}
