import { Injectable, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import {
  DeadLetterNotFoundError,
  InboxService,
  OutboxService,
  PullWorker,
  PullWorkerHost,
  QueueBoxAdmin,
  type OutboxMessage,
  type OutboxPublisher,
} from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const MINUTE = 60_000;

/**
 * An age read from the database clock for a row written between `before` and `after` (that clock
 * too): more than 0 (the report is a later statement than the insert) and no more than the time
 * between them, plus 2 ms for the rounding to milliseconds of the instants (JavaScript dates,
 * SQL Server's datetime2(3)).
 */
function expectAgedBetween(ageSeconds: number, before: Date, after: Date): void {
  expect(ageSeconds).toBeGreaterThan(0);
  expect(ageSeconds).toBeLessThanOrEqual((after.getTime() - before.getTime() + 2) / 1000);
}

describeWithDatabase('QueueBoxAdmin', () => {
  describe('reports and dead letters (an API-only replica: no loop runs)', () => {
    let schema: string;
    let app: TestApp;
    let db: DataSource;
    let admin: QueueBoxAdmin;
    const database = () => testDatabase();
    const outboxRow = (row: Parameters<ReturnType<typeof testDatabase>['insertOutboxRow']>[2]) => database().insertOutboxRow(db, schema, row);
    const inboxRow = (row: Parameters<ReturnType<typeof testDatabase>['insertInboxRow']>[2]) => database().insertInboxRow(db, schema, row);

    beforeAll(async () => {
      schema = await createTestSchema();
      db = await openDataSource(schema, 4);
      app = await startQueueBoxApp(schema, {
        workers: { enabled: false },
        destinations: { sink: { type: 'custom', publisher: RecordingPublisher }, other: { type: 'custom', publisher: RecordingPublisher } },
      }, [RecordingPublisher]);
      admin = app.app.get(QueueBoxAdmin);
    });
    beforeEach(() => database().truncate(db, schema, ['outbox', 'inbox']));
    afterEach(() => vi.restoreAllMocks());
    afterAll(async () => {
      await app?.close();
      await db?.destroy();
    });

    it('shows the backlog per destination and per inbox source, aged by the database clock', async () => {
      const before = await database().databaseNow(db);
      await database().seedOutbox(db, schema, { key: 'a', count: 3, destination: 'sink' });
      await database().seedOutbox(db, schema, { key: null, count: 2, destination: 'other' });
      await database().seedInbox(db, schema, { source: 'billing', key: 'x', count: 4 });
      await outboxRow({ destination: 'sink', state: 'dead', finishedAgoMs: 0 });

      const backlog = await admin.backlog();
      const after = await database().databaseNow(db);
      const byName = (entries: { name: string }[]) => [...entries].sort((a, b) => a.name.localeCompare(b.name));
      expect(byName(backlog.outbox)).toMatchObject([
        { name: 'other', pending: 2 },
        { name: 'sink', pending: 3 },
      ]);
      expect(backlog.inbox).toMatchObject([{ name: 'billing', pending: 4 }]);
      for (const entry of [...backlog.outbox, ...backlog.inbox]) expectAgedBetween(entry.oldestAgeSeconds, before, after);
    });

    it('finds the keys whose head row is retrying or dead, and only those', async () => {
      const before = await database().databaseNow(db);
      // k1: the head failed and waits for its retry; two rows wait behind it.
      const k1 = await outboxRow({ destination: 'sink', key: 'k1', attempts: 2, lastError: 'HTTP 503' });
      await database().seedOutbox(db, schema, { key: 'k1', count: 2, destination: 'sink' });
      // k2: the oldest row died; the younger one went on without it.
      const k2 = await outboxRow({ destination: 'sink', key: 'k2', state: 'dead', attempts: 5, lastError: 'HTTP 400', finishedAgoMs: MINUTE });
      await outboxRow({ destination: 'sink', key: 'k2', state: 'sent', finishedAgoMs: 0 });
      // k3: a fresh head: nothing is blocked.
      await database().seedOutbox(db, schema, { key: 'k3', count: 2, destination: 'sink' });
      // k4: sent, then dead (the head now), then pending.
      await outboxRow({ destination: 'sink', key: 'k4', state: 'sent', finishedAgoMs: MINUTE });
      const k4 = await outboxRow({ destination: 'sink', key: 'k4', state: 'dead', finishedAgoMs: 0 });
      await outboxRow({ destination: 'sink', key: 'k4' });
      // k5: a fresh head with a dead row behind it: the head is not failing.
      await outboxRow({ destination: 'sink', key: 'k5' });
      await outboxRow({ destination: 'sink', key: 'k5', state: 'dead', finishedAgoMs: 0 });
      // The same key on another destination is another ordering scope.
      await outboxRow({ destination: 'other', key: 'k1' });
      // Unordered rows have no key to block.
      await outboxRow({ destination: 'sink', key: null, state: 'dead', finishedAgoMs: 0 });
      const inboxHead = await inboxRow({ source: 'billing', idempotencyKey: 'i1', key: 'agg', state: 'dead', finishedAgoMs: 0 });
      await inboxRow({ source: 'billing', idempotencyKey: 'i2', key: 'agg' });

      const blocked = await admin.blockedKeys();
      const after = await database().databaseNow(db);
      expect(blocked.map(({ table, stream, key, id, reason, waiting }) => ({ table, stream, key, id, reason, waiting }))).toEqual([
        { table: 'outbox', stream: 'sink', key: 'k1', id: k1, reason: 'retrying', waiting: 2 },
        { table: 'outbox', stream: 'sink', key: 'k2', id: k2, reason: 'dead', waiting: 0 },
        { table: 'outbox', stream: 'sink', key: 'k4', id: k4, reason: 'dead', waiting: 1 },
        { table: 'inbox', stream: 'billing', key: 'agg', id: inboxHead, reason: 'dead', waiting: 1 },
      ]);
      expect(blocked[0]).toMatchObject({ attempts: 2, lastError: 'HTTP 503' });
      expectAgedBetween(blocked[0].ageSeconds, before, after);
      expect(await admin.blockedKeys({ limit: 1 })).toHaveLength(2); // one per table
      await expect(admin.blockedKeys({ limit: 0 })).rejects.toMatchObject({ field: 'limit' });
    });

    it('lists claims whose lease ends within the window, by the database clock', async () => {
      // Seeded claims hold an hour-long lease.
      const outboxClaim = await outboxRow({ destination: 'sink', key: 'k', state: 'processing' });
      const inboxClaim = await inboxRow({ source: 'billing', idempotencyKey: 'i', state: 'processing' });
      await outboxRow({ destination: 'sink', key: 'other' });

      expect((await admin.claimsAtRisk({ withinMs: MINUTE })).expiring).toEqual([]);
      const { expiring, lost } = await admin.claimsAtRisk({ withinMs: 2 * 60 * MINUTE });
      expect(expiring.map(({ table, id }) => ({ table, id })).sort((a, b) => a.table.localeCompare(b.table))).toEqual([
        { table: 'inbox', id: inboxClaim },
        { table: 'outbox', id: outboxClaim },
      ]);
      for (const claim of expiring) {
        expect(claim.expiresInMs).toBeGreaterThan(50 * MINUTE);
        expect(claim.expiresInMs).toBeLessThanOrEqual(60 * MINUTE);
        expect(claim.leaseExpiresAt.getTime()).toBeGreaterThan(claim.claimedAt.getTime());
      }
      expect(lost).toEqual([]);
      await expect(admin.claimsAtRisk({ withinMs: -1 })).rejects.toMatchObject({ field: 'withinMs' });
    });

    it('lists dead letters by keyset pages, filtered by destination, error text and time of death', async () => {
      const o1 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'HTTP 503 Service Unavailable', finishedAgoMs: 180 * MINUTE });
      const o2 = await outboxRow({ destination: 'sink', key: 'k', state: 'dead', lastError: 'HTTP 400 Bad Request', finishedAgoMs: 120 * MINUTE });
      const o3 = await outboxRow({ destination: 'other', state: 'dead', lastError: 'HTTP 503', finishedAgoMs: 60 * MINUTE });
      const o4 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'quota at 100%_now', finishedAgoMs: 10 * MINUTE });
      await outboxRow({ destination: 'sink', lastError: 'HTTP 503' });
      const i1 = await inboxRow({ source: 'billing', idempotencyKey: 'i1', state: 'dead', lastError: 'handler failed', finishedAgoMs: 0 });
      const now = await database().databaseNow(db);
      const ago = (minutes: number) => new Date(now.getTime() - minutes * MINUTE);
      const ids = async (query: Parameters<QueueBoxAdmin['listDead']>[1]) => (await admin.listDead('outbox', query)).items.map((row) => row.id);

      expect(await ids({})).toEqual([o1, o2, o3, o4]);
      expect(await ids({ destination: 'sink' })).toEqual([o1, o2, o4]);
      expect(await ids({ errorContains: 'http 503' })).toEqual([o1, o3]);
      // Matched literally: no LIKE wildcards.
      expect(await ids({ errorContains: '%' })).toEqual([o4]);
      expect(await ids({ errorContains: '0%_' })).toEqual([o4]);
      expect(await ids({ deadSince: ago(90) })).toEqual([o3, o4]);
      expect(await ids({ deadBefore: ago(90).toISOString() })).toEqual([o1, o2]);
      expect(await ids({ deadSince: ago(150).toISOString(), deadBefore: ago(30), destination: 'other' })).toEqual([o3]);

      const first = await admin.listDead('outbox', { limit: 2 });
      expect(first.items.map((row) => row.id)).toEqual([o1, o2]);
      expect(first.items[1]).toMatchObject({ destination: 'sink', key: 'k', attempts: 1, lastError: 'HTTP 400 Bad Request' });
      expect(first.next).toBe(o2);
      const second = await admin.listDead('outbox', { limit: 2, after: first.next });
      expect(second.items.map((row) => row.id)).toEqual([o3, o4]);
      expect((await admin.listDead('outbox', { limit: 2, after: second.next })).items).toEqual([]);

      expect((await admin.listDead('inbox', { source: 'billing' })).items).toMatchObject([{ id: i1, source: 'billing', idempotencyKey: 'i1', lastError: 'handler failed' }]);
      expect((await admin.listDead('inbox', { source: 'other' })).items).toEqual([]);
    });

    it('rejects a bad page or filter with a typed error naming the field', async () => {
      const cases: [Parameters<QueueBoxAdmin['listDead']>[1], string][] = [
        [{ limit: 0 }, 'limit'],
        [{ limit: 1.5 }, 'limit'],
        [{ after: '1; drop' }, 'after'],
        [{ source: 'billing' }, 'source'],
        [{ destination: '' }, 'destination'],
        [{ errorContains: 'x'.repeat(201) }, 'errorContains'],
        [{ deadSince: 'yesterday' }, 'deadSince'],
        [{ deadSince: '2026-01-01T00:00:00' }, 'deadSince'],
        [{ deadBefore: new Date(Number.NaN) }, 'deadBefore'],
        [{ deadSince: '2026-01-02T00:00:00Z', deadBefore: '2026-01-01T00:00:00Z' }, 'deadBefore'],
      ];
      for (const [query, field] of cases) {
        await expect(admin.listDead('outbox', query), JSON.stringify(query)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field });
      }
      await expect(admin.listDead('inbox', { destination: 'sink' })).rejects.toMatchObject({ field: 'destination' });
      await expect(admin.listDead('queue' as 'outbox')).rejects.toMatchObject({ field: 'table' });
    });

    it('inspects one dead letter, with its payload only when asked for', async () => {
      const id = await outboxRow({ destination: 'sink', key: 'k', state: 'dead', payload: '{"card":"4242"}', lastError: 'HTTP 400', finishedAgoMs: 0 });
      const pending = await outboxRow({ destination: 'sink' });
      const inboxId = await inboxRow({ source: 'billing', idempotencyKey: 'evt-1', state: 'dead', payload: '"p"', finishedAgoMs: 0 });

      const detail = await admin.inspectDead('outbox', id);
      expect(detail).toMatchObject({ table: 'outbox', id, stream: 'sink', key: 'k', attempts: 1, lastError: 'HTTP 400', headers: {} });
      expect(detail.messageId).toMatch(/^[0-9a-f-]{36}$/);
      expect(detail.createdAt).toBeInstanceOf(Date);
      expect(detail.finishedAt).toBeInstanceOf(Date);
      expect(detail).not.toHaveProperty('payload');
      expect((await admin.inspectDead('outbox', id, { payload: true })).payload).toBe('{"card":"4242"}');
      expect(await admin.inspectDead('inbox', inboxId, { payload: true })).toMatchObject({ table: 'inbox', stream: 'billing', idempotencyKey: 'evt-1', payload: '"p"' });

      const missing = admin.inspectDead('outbox', pending);
      await expect(missing).rejects.toBeInstanceOf(DeadLetterNotFoundError);
      await expect(missing).rejects.toMatchObject({ code: 'DEAD_LETTER_NOT_FOUND', field: 'id' });
      await expect(admin.inspectDead('outbox', 'abc')).rejects.toMatchObject({ field: 'id' });
    });

    it('replays and discards dead letters by id or by filter, in chunks, leaving other rows alone, and logs no payload', async () => {
      const log = vi.spyOn(Logger.prototype, 'log');
      const secret = '{"card":"4242"}';
      const d1 = await outboxRow({ destination: 'sink', key: 'k', state: 'dead', attempts: 5, lastError: 'HTTP 503', payload: secret, finishedAgoMs: 0 });
      const d2 = await outboxRow({ destination: 'sink', key: 'k', state: 'dead', attempts: 5, lastError: 'HTTP 503', payload: secret, finishedAgoMs: 0 });
      const p1 = await outboxRow({ destination: 'sink', key: 'k' });
      const g1 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'gone for good', finishedAgoMs: 0 });
      const g2 = await outboxRow({ destination: 'other', state: 'dead', lastError: 'GONE', finishedAgoMs: 0 });
      const g3 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'HTTP 410 Gone', finishedAgoMs: 0 });

      expect(await admin.replayDead('outbox', { ids: [d2, p1, d1, d1] }, { actor: 'alice' })).toEqual({ count: 2, chunks: 1, ids: [d1, d2] });
      for (const id of [d1, d2]) expect(await database().rowState(db, schema, id)).toMatchObject({ state: 'pending', attempts: 0, last_error: 'HTTP 503' });
      expect(await database().rowState(db, schema, p1)).toMatchObject({ state: 'pending', attempts: 0 });
      expect(await admin.rowStates('outbox', [g1, d2, '999999', d1])).toEqual([
        { id: d1, state: 'pending', attempts: 0 },
        { id: d2, state: 'pending', attempts: 0 },
        { id: g1, state: 'dead', attempts: 1 },
      ]);
      await expect(admin.rowStates('outbox', ['1', 'x'])).rejects.toMatchObject({ field: 'ids' });

      expect(await admin.discardDead('outbox', { filter: { errorContains: 'gone', destination: 'sink' } }, { chunkSize: 1 })).toEqual({ count: 2, chunks: 3 });
      expect((await database().outboxRows(db, schema)).map((row) => row.id)).toEqual([d1, d2, p1, g2]);
      expect(await admin.discardDead('outbox', { ids: [g2, p1, g3] })).toMatchObject({ count: 1, ids: [g2] });
      expect(await database().countByState(db, schema, 'outbox')).toEqual({ pending: 3 });

      const inboxDead = await inboxRow({ source: 'billing', idempotencyKey: 'e', state: 'dead', finishedAgoMs: 0 });
      expect(await app.app.get(InboxService).replayDead([inboxDead])).toEqual([inboxDead]);
      expect(await app.app.get(OutboxService).replayDead([])).toEqual([]);

      const lines = log.mock.calls.map((call) => JSON.stringify(call));
      expect(lines.some((line) => line.includes('dead letters replayed') && line.includes('"count":2') && line.includes('"actor":"alice"'))).toBe(true);
      expect(lines.some((line) => line.includes('dead letters discarded') && line.includes('"selection":"filter"'))).toBe(true);
      expect(lines.some((line) => line.includes('4242'))).toBe(false);

      await expect(admin.replayDead('outbox', {} as { ids: string[] })).rejects.toMatchObject({ field: 'selection' });
      await expect(admin.replayDead('outbox', { ids: ['x'] })).rejects.toMatchObject({ field: 'ids' });
      await expect(admin.discardDead('outbox', { filter: {} }, { chunkSize: 0 })).rejects.toMatchObject({ field: 'chunkSize' });
      await expect(admin.discardDead('inbox', { filter: { destination: 'sink' } })).rejects.toMatchObject({ field: 'destination' });
    });
  });

  describe('loops of a running replica', () => {
    let schema: string;
    let app: TestApp | undefined;

    @PullWorker('audit', { pollIntervalMs: 50 })
    @Injectable()
    class AuditWorker extends PullWorkerHost {
      async handle(): Promise<void> {}
    }

    beforeAll(async () => {
      schema = await createTestSchema();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await app?.close();
      app = undefined;
    });

    it('shows every loop with its state, last tick, in-flight work and consecutive errors', async () => {
      app = await startQueueBoxApp(schema, { outbox: { pollIntervalMs: 20 }, retention: { deadMs: 60 * MINUTE, intervalMs: 100 } }, [AuditWorker]);
      const admin = app.app.get(QueueBoxAdmin);
      await waitFor(() => admin.loops().every((loop) => loop.state === 'running' && loop.lastTickAt !== null), 10_000, 'every loop ticked');
      expect(admin.loops().map(({ name, component, source }) => ({ name, component, source }))).toEqual([
        { name: 'outbox', component: 'outbox', source: undefined },
        { name: 'pull:audit', component: 'pull', source: 'audit' },
        { name: 'retention', component: 'retention', source: undefined },
      ]);
      expect(admin.loops()[0]).toMatchObject({ consecutiveErrors: 0, lastError: null, inFlight: 0, pollIntervalMs: 20, lostClaims: [] });

      vi.spyOn(app.app.get(ClaimRepository, { strict: false }), 'claimOutbox').mockRejectedValue(new Error('database unreachable'));
      await waitFor(() => admin.loops()[0].consecutiveErrors >= 2, 10_000, 'failed ticks counted');
      expect(admin.loops()[0].lastError).toContain('database unreachable');
      expect(admin.loops()[1].consecutiveErrors).toBe(0);
    });
  });

  describe('a claim that outlives its lease', () => {
    /** Holds every publish until `open()`: a destination that hangs. */
    @Injectable()
    class HangingPublisher implements OutboxPublisher {
      private release!: () => void;
      private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
      started = 0;

      async publish(): Promise<void> {
        this.started += 1;
        await this.gate;
      }

      open(): void {
        this.release();
      }
    }

    const apps: TestApp[] = [];
    afterEach(async () => {
      vi.restoreAllMocks();
      await Promise.all(apps.splice(0).map((app) => app.close()));
    });

    it('is shown at risk while its lease runs out, and as lost once another replica took it over', async () => {
      const schema = await createTestSchema();
      // A lease of 3 s, renewed every second: 2 s of margin for the new owner's renewal on a loaded machine.
      const outbox = { claimTimeoutMs: 3_000, pollIntervalMs: 50 };
      const oldOwner = await startQueueBoxApp(schema, { destinations: { sink: { type: 'custom', publisher: HangingPublisher } }, outbox: { ...outbox, concurrency: 1 } }, [HangingPublisher]);
      apps.push(oldOwner);
      // A stalled process: its renewals never reach the database.
      vi.spyOn(oldOwner.app.get(ClaimRepository, { strict: false }), 'renewMany').mockResolvedValue([]);
      const admin = oldOwner.app.get(QueueBoxAdmin);
      const { id } = await oldOwner.app.get(OutboxService).enqueue({ destination: 'sink', key: 'k', payload: 1 });
      await waitFor(() => oldOwner.app.get(HangingPublisher).started === 1, 10_000, 'the publish started');

      const atRisk = await admin.claimsAtRisk({ withinMs: 5_000 });
      expect(atRisk.expiring).toMatchObject([{ table: 'outbox', id, stream: 'sink', key: 'k', attempts: 1 }]);
      expect(atRisk.expiring[0].expiresInMs).toBeLessThanOrEqual(3_000);

      const newOwner = await startQueueBoxApp(schema, { destinations: { sink: { type: 'custom', publisher: RecordingPublisher } }, outbox }, [RecordingPublisher]);
      apps.push(newOwner);
      await waitFor(async () => (await testDatabase().rowState(newOwner.dataSource, schema, id)).state === 'sent', 20_000, 'sent by the new owner');
      oldOwner.app.get(HangingPublisher).open();

      await waitFor(async () => (await admin.claimsAtRisk()).lost.length === 1, 10_000, 'the loss recorded');
      const { lost } = await admin.claimsAtRisk();
      expect(lost).toMatchObject([{ loop: 'outbox', id }]);
      expect(lost[0].at).toBeInstanceOf(Date);
      expect(admin.loops()[0].lostClaims).toMatchObject([{ id }]);
    });
  });

  describe('replay by filter of 10,000 dead rows while the poller runs', () => {
    /** Records every publish in the order the publishes start. */
    @Injectable()
    class OrderRecorder implements OutboxPublisher {
      readonly published: Pick<OutboxMessage, 'id' | 'messageId' | 'key' | 'destination'>[] = [];

      async publish({ id, messageId, key, destination }: OutboxMessage): Promise<void> {
        this.published.push({ id, messageId, key, destination });
      }
    }

    let schema: string;
    let db: DataSource;
    let app: TestApp | undefined;
    beforeAll(async () => {
      schema = await createTestSchema();
      db = await openDataSource(schema, 4);
    });
    afterAll(async () => {
      await app?.close();
      await db?.destroy();
    });

    it('publishes each replayed row once, in order per key, next to live traffic; rows outside the filter stay dead', { timeout: 180_000 }, async () => {
      const database = testDatabase();
      // Dead rows the filter must leave alone: another error, another destination.
      await database.seedOutbox(db, schema, { key: 'k0', count: 50, destination: 'sink' });
      await database.deadLetterPending(db, schema, 'outbox', { lastError: 'HTTP 400 Bad Request', attempts: 1 });
      await database.seedOutbox(db, schema, { key: 'k1', count: 50, destination: 'other' });
      await database.deadLetterPending(db, schema, 'outbox', { lastError: 'HTTP 503 Service Unavailable', attempts: 5, stream: 'other' });
      // 10,000 rows of 10 keys, interleaved, dead after a long outage of `sink`.
      for (let round = 0; round < 10; round++) {
        for (let key = 0; key < 10; key++) await database.seedOutbox(db, schema, { key: `k${key}`, count: 100, destination: 'sink' });
      }
      await database.deadLetterPending(db, schema, 'outbox', { lastError: 'HTTP 503 Service Unavailable', attempts: 5, stream: 'sink' });
      const untouched = (await database.outboxRows(db, schema)).filter((row) => row.destination === 'other' || row.last_error!.includes('400')).map((row) => row.id);
      expect(untouched).toHaveLength(100);

      app = await startQueueBoxApp(
        schema,
        { destinations: { sink: { type: 'custom', publisher: OrderRecorder }, other: { type: 'custom', publisher: OrderRecorder } }, outbox: { pollIntervalMs: 20 } },
        [OrderRecorder],
      );
      const outbox = app.app.get(OutboxService);
      const live = async () => {
        const ids: string[] = [];
        for (let batch = 0; batch < 10; batch++) {
          const messages = Array.from({ length: 20 }, (_, i) => ({ destination: 'sink' as const, key: `live${i % 4}`, payload: { batch, i } }));
          ids.push(...(await outbox.enqueue(messages)).map((message) => message.id));
        }
        return ids;
      };

      const [result, liveIds] = await Promise.all([
        app.app.get(QueueBoxAdmin).replayDead('outbox', { filter: { destination: 'sink', errorContains: '503' } }, { chunkSize: 500 }),
        live(),
      ]);
      expect(result).toEqual({ count: 10_000, chunks: 21 });

      await waitFor(async () => (await database.countByState(db, schema, 'outbox')).sent === 10_200, 150_000, 'every replayed and live row sent');
      const published = app.app.get(OrderRecorder).published;
      expect(published).toHaveLength(10_200);
      expect(new Set(published.map((message) => message.messageId)).size).toBe(10_200);
      const publishedIds = new Set(published.map((message) => message.id));
      for (const id of liveIds) expect(publishedIds.has(id)).toBe(true);
      for (const id of untouched) expect(publishedIds.has(id)).toBe(false);
      expect(await database.countByState(db, schema, 'outbox')).toEqual({ sent: 10_200, dead: 100 });

      // Per key, rows went out oldest first.
      const perKey = new Map<string, bigint[]>();
      for (const message of published) perKey.set(message.key!, [...(perKey.get(message.key!) ?? []), BigInt(message.id)]);
      expect(perKey.size).toBe(14);
      for (const [key, ids] of perKey) {
        const inversions = ids.filter((id, i) => i > 0 && id < ids[i - 1]).length;
        expect(inversions, `key ${key}`).toBe(0);
      }
    });
  });
});
