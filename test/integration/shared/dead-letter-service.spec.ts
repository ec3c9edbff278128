import { Injectable, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DeadLetterNotFoundError,
  DeadLetterService,
  InvalidArgumentError,
  OutboxService,
  type DeadLetterListQuery,
  type OutboxMessage,
  type OutboxPublisher,
} from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { apiOnlyApp } from '../../fixtures/api-only-app.js';

const MINUTE = 60_000;

describeWithDatabase('DeadLetterService', () => {
  describe('both tables, on an API-only replica (no loop runs)', () => {
    const env = apiOnlyApp();
    const database = () => testDatabase();
    const { outboxRow, inboxRow } = env;
    let deadLetters: DeadLetterService;
    beforeAll(() => {
      deadLetters = env.app.app.get(DeadLetterService);
    });

    it('lists dead outbox rows by keyset pages, filtered by destination, error text and time of death', async () => {
      const o1 = await outboxRow({
        destination: 'sink',
        state: 'dead',
        lastError: 'HTTP 503 Service Unavailable',
        finishedAgoMs: 180 * MINUTE,
      });
      const o2 = await outboxRow({
        destination: 'sink',
        key: 'k',
        state: 'dead',
        lastError: 'HTTP 400 Bad Request',
        finishedAgoMs: 120 * MINUTE,
      });
      const o3 = await outboxRow({
        destination: 'other',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 60 * MINUTE,
      });
      const o4 = await outboxRow({
        destination: 'sink',
        state: 'dead',
        lastError: 'quota at 100%_now',
        finishedAgoMs: 10 * MINUTE,
      });
      await outboxRow({ destination: 'sink', lastError: 'HTTP 503' });
      const i1 = await inboxRow({
        source: 'billing',
        idempotencyKey: 'i1',
        state: 'dead',
        lastError: 'handler failed',
        finishedAgoMs: 0,
      });
      const now = await database().databaseNow(env.db);
      const ago = (minutes: number) => new Date(now.getTime() - minutes * MINUTE);
      const ids = async (query: DeadLetterListQuery) =>
        (await deadLetters.list('outbox', query)).items.map((row) => row.id);

      expect(await ids({})).toEqual([o1, o2, o3, o4]);
      expect(await ids({ destination: 'sink' })).toEqual([o1, o2, o4]);
      expect(await ids({ errorContains: 'http 503' })).toEqual([o1, o3]);
      // Matched literally: no LIKE wildcards.
      expect(await ids({ errorContains: '%' })).toEqual([o4]);
      expect(await ids({ errorContains: '0%_' })).toEqual([o4]);
      expect(await ids({ deadSince: ago(90) })).toEqual([o3, o4]);
      expect(await ids({ deadBefore: ago(90).toISOString() })).toEqual([o1, o2]);
      expect(await ids({ deadSince: ago(150).toISOString(), deadBefore: ago(30), destination: 'other' })).toEqual([o3]);

      const first = await deadLetters.list('outbox', { limit: 2 });
      expect(first.items.map((row) => row.id)).toEqual([o1, o2]);
      expect(first.items[1]).toMatchObject({
        destination: 'sink',
        key: 'k',
        attempts: 1,
        lastError: 'HTTP 400 Bad Request',
      });
      expect(first.next).toBe(o2);
      const second = await deadLetters.list('outbox', { limit: 2, after: first.next });
      expect(second.items.map((row) => row.id)).toEqual([o3, o4]);
      expect((await deadLetters.list('outbox', { limit: 2, after: second.next })).items).toEqual([]);

      expect((await deadLetters.list('inbox', { source: 'billing' })).items).toMatchObject([
        { id: i1, source: 'billing', idempotencyKey: 'i1', lastError: 'handler failed' },
      ]);
      expect((await deadLetters.list('inbox', { source: 'other' })).items).toEqual([]);
    });

    it('rejects a bad page or filter with a typed error naming the field', async () => {
      const cases: [DeadLetterListQuery, string][] = [
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
        await expect(deadLetters.list('outbox', query), JSON.stringify(query)).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          field,
        });
      }
      await expect(deadLetters.list('inbox', { destination: 'sink' })).rejects.toMatchObject({ field: 'destination' });
      await expect(deadLetters.list('queue' as 'outbox')).rejects.toMatchObject({ field: 'table' });
    });

    it('inspects one dead row of either table, with its payload only when asked for', async () => {
      const id = await outboxRow({
        destination: 'sink',
        key: 'k',
        state: 'dead',
        payload: '{"card":"4242"}',
        lastError: 'HTTP 400',
        finishedAgoMs: 0,
      });
      const pending = await outboxRow({ destination: 'sink' });
      const inboxId = await inboxRow({
        source: 'billing',
        idempotencyKey: 'evt-1',
        state: 'dead',
        payload: '"p"',
        finishedAgoMs: 0,
      });

      const detail = await deadLetters.inspect('outbox', id);
      expect(detail).toMatchObject({
        table: 'outbox',
        id,
        stream: 'sink',
        key: 'k',
        attempts: 1,
        lastError: 'HTTP 400',
        headers: {},
      });
      expect(detail.messageId).toMatch(/^[0-9a-f-]{36}$/);
      expect(detail.createdAt).toBeInstanceOf(Date);
      expect(detail.finishedAt).toBeInstanceOf(Date);
      expect(detail).not.toHaveProperty('payload');
      expect((await deadLetters.inspect('outbox', id, { payload: true })).payload).toBe('{"card":"4242"}');
      expect(await deadLetters.inspect('inbox', inboxId, { payload: true })).toMatchObject({
        table: 'inbox',
        stream: 'billing',
        idempotencyKey: 'evt-1',
        payload: '"p"',
      });

      const missing = deadLetters.inspect('outbox', pending);
      await expect(missing).rejects.toBeInstanceOf(DeadLetterNotFoundError);
      await expect(missing).rejects.toMatchObject({ code: 'DEAD_LETTER_NOT_FOUND', field: 'id' });
      await expect(deadLetters.inspect('outbox', 'abc')).rejects.toMatchObject({ field: 'id' });
    });

    it('replays and discards dead outbox rows by id or by filter, in chunks, leaving other rows alone, and logs no payload', async () => {
      const log = vi.spyOn(Logger.prototype, 'log');
      const secret = '{"card":"4242"}';
      const d1 = await outboxRow({
        destination: 'sink',
        key: 'k',
        state: 'dead',
        attempts: 5,
        lastError: 'HTTP 503',
        payload: secret,
        finishedAgoMs: 0,
      });
      const d2 = await outboxRow({
        destination: 'sink',
        key: 'k',
        state: 'dead',
        attempts: 5,
        lastError: 'HTTP 503',
        payload: secret,
        finishedAgoMs: 0,
      });
      const p1 = await outboxRow({ destination: 'sink', key: 'k' });
      const g1 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'gone for good', finishedAgoMs: 0 });
      const g2 = await outboxRow({ destination: 'other', state: 'dead', lastError: 'GONE', finishedAgoMs: 0 });
      const g3 = await outboxRow({ destination: 'sink', state: 'dead', lastError: 'HTTP 410 Gone', finishedAgoMs: 0 });

      expect(await deadLetters.replay('outbox', { ids: [d2, p1, d1, d1] }, { actor: 'alice' })).toEqual({
        count: 2,
        chunks: 1,
        ids: [d1, d2],
      });
      for (const id of [d1, d2])
        expect(await database().rowState(env.db, env.schema, id)).toMatchObject({
          state: 'pending',
          attempts: 0,
          last_error: 'HTTP 503',
        });
      expect(await database().rowState(env.db, env.schema, p1)).toMatchObject({ state: 'pending', attempts: 0 });
      expect(await deadLetters.rowStates('outbox', [g1, d2, '999999', d1])).toEqual([
        { id: d1, state: 'pending', attempts: 0 },
        { id: d2, state: 'pending', attempts: 0 },
        { id: g1, state: 'dead', attempts: 1 },
      ]);
      await expect(deadLetters.rowStates('outbox', ['1', 'x'])).rejects.toMatchObject({ field: 'ids' });

      expect(
        await deadLetters.discard(
          'outbox',
          { filter: { errorContains: 'gone', destination: 'sink' } },
          { chunkSize: 1 },
        ),
      ).toEqual({ count: 2, chunks: 3 });
      expect((await database().outboxRows(env.db, env.schema)).map((row) => row.id)).toEqual([d1, d2, p1, g2]);
      expect(await deadLetters.discard('outbox', { ids: [g2, p1, g3] })).toMatchObject({ count: 1, ids: [g2] });
      expect(await database().countByState(env.db, env.schema, 'outbox')).toEqual({ pending: 3 });

      expect(await deadLetters.replay('outbox', { ids: [] })).toEqual({ count: 0, chunks: 0, ids: [] });

      const lines = log.mock.calls.map((call) => JSON.stringify(call));
      expect(
        lines.some(
          (line) =>
            line.includes('dead letters replayed') && line.includes('"count":2') && line.includes('"actor":"alice"'),
        ),
      ).toBe(true);
      expect(
        lines.some((line) => line.includes('dead letters discarded') && line.includes('"selection":"filter"')),
      ).toBe(true);
      expect(lines.some((line) => line.includes('4242'))).toBe(false);
    });

    it('lists dead inbox rows by keyset pages, filtered by source, error text and time of death', async () => {
      const i1 = await inboxRow({
        source: 'billing',
        idempotencyKey: 'i1',
        state: 'dead',
        lastError: 'handler failed: HTTP 503',
        finishedAgoMs: 120 * MINUTE,
      });
      const i2 = await inboxRow({
        source: 'shop',
        idempotencyKey: 'i2',
        key: 'cart',
        state: 'dead',
        attempts: 4,
        lastError: 'no such cart',
        finishedAgoMs: 60 * MINUTE,
      });
      const i3 = await inboxRow({
        source: 'billing',
        idempotencyKey: 'i3',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      await inboxRow({ source: 'billing', idempotencyKey: 'i4', state: 'processed', finishedAgoMs: 0 });
      await inboxRow({ source: 'billing', idempotencyKey: 'i5', lastError: 'HTTP 503' });
      await outboxRow({ destination: 'sink', state: 'dead', lastError: 'HTTP 503', finishedAgoMs: 0 });
      const now = await database().databaseNow(env.db);
      const ids = async (query: DeadLetterListQuery) =>
        (await deadLetters.list('inbox', query)).items.map((row) => row.id);

      expect(await ids({})).toEqual([i1, i2, i3]);
      expect(await ids({ source: 'billing' })).toEqual([i1, i3]);
      expect(await ids({ errorContains: 'http 503' })).toEqual([i1, i3]);
      expect(await ids({ deadSince: new Date(now.getTime() - 90 * MINUTE), source: 'billing' })).toEqual([i3]);

      const first = await deadLetters.list('inbox', { limit: 2 });
      expect(first.items).toMatchObject([
        {
          id: i1,
          source: 'billing',
          idempotencyKey: 'i1',
          key: null,
          attempts: 1,
          lastError: 'handler failed: HTTP 503',
        },
        { id: i2, source: 'shop', idempotencyKey: 'i2', key: 'cart', attempts: 4, lastError: 'no such cart' },
      ]);
      expect(first.items[0].finishedAt).toBeInstanceOf(Date);
      expect(first.items[0]).not.toHaveProperty('payload');
      expect(first.next).toBe(i2);
      expect(await deadLetters.list('inbox', { limit: 2, after: first.next })).toEqual({
        items: [expect.objectContaining({ id: i3 })],
      });
    });

    it('replays and discards dead inbox rows by id or by filter, and follows the replayed rows', async () => {
      const b1 = await inboxRow({
        source: 'billing',
        idempotencyKey: 'b1',
        key: 'k',
        state: 'dead',
        attempts: 3,
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      const b2 = await inboxRow({
        source: 'billing',
        idempotencyKey: 'b2',
        key: 'k',
        state: 'dead',
        attempts: 3,
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      const s1 = await inboxRow({
        source: 'shop',
        idempotencyKey: 's1',
        state: 'dead',
        lastError: 'bad payload',
        finishedAgoMs: 0,
      });
      const s2 = await inboxRow({
        source: 'shop',
        idempotencyKey: 's2',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      const done = await inboxRow({ source: 'shop', idempotencyKey: 's3', state: 'processed', finishedAgoMs: 0 });
      const outboxDead = await outboxRow({
        destination: 'sink',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });

      expect(await deadLetters.replay('inbox', { ids: [b2, done, b1, '999999'] }, { actor: 'bob' })).toEqual({
        count: 2,
        chunks: 1,
        ids: [b1, b2],
      });
      for (const id of [b1, b2])
        expect(await database().rowState(env.db, env.schema, id, 'inbox')).toMatchObject({
          state: 'pending',
          attempts: 0,
          last_error: 'HTTP 503',
        });
      expect(await deadLetters.rowStates('inbox', [s1, b2, done, b1])).toEqual([
        { id: b1, state: 'pending', attempts: 0 },
        { id: b2, state: 'pending', attempts: 0 },
        { id: s1, state: 'dead', attempts: 1 },
        { id: done, state: 'processed', attempts: 1 },
      ]);

      // By filter: the source's dead rows with that error, and no other.
      expect(await deadLetters.replay('inbox', { filter: { source: 'shop', errorContains: '503' } })).toEqual({
        count: 1,
        chunks: 2,
      });
      expect(await database().rowState(env.db, env.schema, s2, 'inbox')).toMatchObject({
        state: 'pending',
        attempts: 0,
      });
      expect(await deadLetters.discard('inbox', { filter: { source: 'shop' } }, { chunkSize: 1 })).toEqual({
        count: 1,
        chunks: 2,
      });
      expect((await database().inboxRows(env.db, env.schema)).map((row) => row.id)).toEqual([b1, b2, s2, done]);
      expect(await deadLetters.discard('inbox', { ids: [b1, done] })).toEqual({ count: 0, chunks: 1, ids: [] });
      expect(await database().countByState(env.db, env.schema, 'inbox')).toEqual({ pending: 3, processed: 1 });
      // The other table's dead row is untouched.
      expect(await database().rowState(env.db, env.schema, outboxDead)).toMatchObject({ state: 'dead' });
    });

    it('rejects a bad replay or discard with a typed error naming the field, and changes nothing', async () => {
      const outboxDead = await outboxRow({
        destination: 'sink',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      const inboxDead = await inboxRow({
        source: 'billing',
        idempotencyKey: 'e',
        state: 'dead',
        lastError: 'HTTP 503',
        finishedAgoMs: 0,
      });
      const tooMany = Array.from({ length: 10_001 }, (_, i) => String(i + 1));
      const cases: [() => Promise<unknown>, string][] = [
        [() => deadLetters.replay('outbox', {} as { ids: string[] }), 'selection'],
        [() => deadLetters.replay('outbox', { ids: ['x'] }), 'ids'],
        [() => deadLetters.replay('outbox', { ids: '1' as unknown as string[] }), 'ids'],
        [() => deadLetters.replay('outbox', { ids: ['9223372036854775808'] }), 'ids'],
        [() => deadLetters.replay('inbox', { ids: tooMany }), 'ids'],
        [() => deadLetters.replay('outbox', { filter: { source: 'billing' } }), 'source'],
        [() => deadLetters.replay('inbox', { filter: { errorContains: 'a\0b' } }), 'errorContains'],
        [() => deadLetters.replay('queue' as 'outbox', { ids: [outboxDead] }), 'table'],
        [() => deadLetters.discard('outbox', { filter: {} }, { chunkSize: 0 }), 'chunkSize'],
        [() => deadLetters.discard('inbox', { ids: [inboxDead] }, { chunkSize: 1_001 }), 'chunkSize'],
        [() => deadLetters.discard('inbox', { filter: { destination: 'sink' } }), 'destination'],
        [() => deadLetters.discard('outbox', { filter: { deadSince: 'yesterday' } }), 'deadSince'],
        [() => deadLetters.rowStates('inbox', ['1', 'x']), 'ids'],
        [() => deadLetters.rowStates('outbox', tooMany.slice(0, 1_001)), 'ids'],
      ];
      for (const [call, field] of cases) {
        const error = await call().catch((e: unknown) => e);
        expect(error, field).toBeInstanceOf(InvalidArgumentError);
        expect(error, field).toMatchObject({ code: 'INVALID_ARGUMENT', field });
      }
      expect(await database().rowState(env.db, env.schema, outboxDead)).toMatchObject({ state: 'dead', attempts: 1 });
      expect(await database().rowState(env.db, env.schema, inboxDead, 'inbox')).toMatchObject({
        state: 'dead',
        attempts: 1,
      });
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

    it(
      'publishes each replayed row once, in order per key, next to live traffic; rows outside the filter stay dead',
      { timeout: 180_000 },
      async () => {
        const database = testDatabase();
        // Dead rows the filter must leave alone: another error, another destination.
        await database.seedOutbox(db, schema, { key: 'k0', count: 50, destination: 'sink' });
        await database.deadLetterPending(db, schema, 'outbox', { lastError: 'HTTP 400 Bad Request', attempts: 1 });
        await database.seedOutbox(db, schema, { key: 'k1', count: 50, destination: 'other' });
        await database.deadLetterPending(db, schema, 'outbox', {
          lastError: 'HTTP 503 Service Unavailable',
          attempts: 5,
          stream: 'other',
        });
        // 10,000 rows of 10 keys, interleaved, dead after a long outage of `sink`.
        for (let round = 0; round < 10; round++) {
          for (let key = 0; key < 10; key++)
            await database.seedOutbox(db, schema, { key: `k${key}`, count: 100, destination: 'sink' });
        }
        await database.deadLetterPending(db, schema, 'outbox', {
          lastError: 'HTTP 503 Service Unavailable',
          attempts: 5,
          stream: 'sink',
        });
        const untouched = (await database.outboxRows(db, schema))
          .filter((row) => row.destination === 'other' || row.last_error!.includes('400'))
          .map((row) => row.id);
        expect(untouched).toHaveLength(100);

        app = await startQueueBoxApp(
          schema,
          {
            destinations: {
              sink: { type: 'custom', publisher: OrderRecorder },
              other: { type: 'custom', publisher: OrderRecorder },
            },
            outbox: { pollIntervalMs: 20 },
          },
          [OrderRecorder],
        );
        const outbox = app.app.get(OutboxService);
        const live = async () => {
          const ids: string[] = [];
          for (let batch = 0; batch < 10; batch++) {
            const messages = Array.from({ length: 20 }, (_, i) => ({
              destination: 'sink' as const,
              key: `live${i % 4}`,
              payload: { batch, i },
            }));
            ids.push(...(await outbox.enqueue(messages)).map((message) => message.id));
          }
          return ids;
        };

        const [result, liveIds] = await Promise.all([
          app.app
            .get(DeadLetterService)
            .replay('outbox', { filter: { destination: 'sink', errorContains: '503' } }, { chunkSize: 500 }),
          live(),
        ]);
        expect(result).toEqual({ count: 10_000, chunks: 21 });

        await waitFor(
          async () => (await database.countByState(db, schema, 'outbox')).sent === 10_200,
          150_000,
          'every replayed and live row sent',
        );
        const published = app.app.get(OrderRecorder).published;
        expect(published).toHaveLength(10_200);
        expect(new Set(published.map((message) => message.messageId)).size).toBe(10_200);
        const publishedIds = new Set(published.map((message) => message.id));
        for (const id of liveIds) expect(publishedIds.has(id)).toBe(true);
        for (const id of untouched) expect(publishedIds.has(id)).toBe(false);
        expect(await database.countByState(db, schema, 'outbox')).toEqual({ sent: 10_200, dead: 100 });

        // Per key, rows went out oldest first.
        const perKey = new Map<string, bigint[]>();
        for (const message of published)
          perKey.set(message.key!, [...(perKey.get(message.key!) ?? []), BigInt(message.id)]);
        expect(perKey.size).toBe(14);
        for (const [key, ids] of perKey) {
          const inversions = ids.filter((id, i) => i > 0 && id < ids[i - 1]).length;
          expect(inversions, `key ${key}`).toBe(0);
        }
      },
    );
  });
});
