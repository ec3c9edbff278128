import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidQueueBoxOptionsError, QueueBoxAdminModule } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';
const SECRET_PAYLOAD = '{"card":"4242-4242"}';

/** A guard trusting the application's session cookie, which a browser sends with any request to the site. */
@Injectable()
class SessionCookieGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers.cookie === 'session=admin';
  }
}

/** The application's own guard: admins send `x-role: admin`; it names the user for the logs. */
@Injectable()
class RoleGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    if (request.headers['x-role'] !== 'admin') return false;
    request.user = { id: 'alice' };
    return true;
  }
}

describeWithDatabase('QueueBoxAdminModule: the admin API', () => {
  let schema: string;
  let db: DataSource;
  const apps: TestApp[] = [];

  const start = async (
    admin: ReturnType<typeof QueueBoxAdminModule.forRoot> | ReturnType<typeof QueueBoxAdminModule.forRootAsync>,
  ) => {
    const app = await startQueueBoxApp(
      schema,
      { workers: { enabled: false }, destinations: { sink: { type: 'custom', publisher: RecordingPublisher } } },
      { imports: [admin], providers: [RecordingPublisher], listen: true },
    );
    apps.push(app);
    return app;
  };
  const deadRow = (lastError = 'HTTP 503') =>
    testDatabase().insertOutboxRow(db, schema, {
      destination: 'sink',
      key: 'k',
      state: 'dead',
      lastError,
      payload: SECRET_PAYLOAD,
      finishedAgoMs: 0,
    });
  const stateOf = async (id: string) => (await testDatabase().rowState(db, schema, id)).state;

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema, 4);
  });
  beforeEach(() => testDatabase().truncate(db, schema, ['outbox', 'inbox']));
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await db?.destroy();
  });

  describe('start-up', () => {
    it('refuses to start without a bearer token or a guard', async () => {
      await expect(start(QueueBoxAdminModule.forRoot({}))).rejects.toMatchObject({
        name: InvalidQueueBoxOptionsError.name,
        path: 'admin.guard',
      });
    });

    it('refuses a bearer token that could be guessed', async () => {
      await expect(start(QueueBoxAdminModule.forRoot({ bearerToken: 'secret' }))).rejects.toMatchObject({
        path: 'admin.bearerToken',
      });
    });

    it('refuses a path that is not route segments, when the module is defined', () => {
      expect(() => QueueBoxAdminModule.forRoot({ bearerToken: TOKEN, path: '../admin?x' })).toThrow(
        expect.objectContaining({ path: 'admin.path' }),
      );
    });
  });

  describe('with a bearer token (forRootAsync)', () => {
    let app: TestApp;
    const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
      const { token = TOKEN, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (rest.body) {
        headers.set('content-type', 'application/json');
        headers.set('x-queuebox-admin', '1');
      }
      return fetch(`${app.url}/ops/queuebox/api/${path}`, { ...rest, headers });
    };
    const json = async (path: string, init?: Parameters<typeof api>[1]) => {
      const response = await api(path, init);
      return {
        status: response.status,
        body: (await response.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] },
      };
    };

    beforeEach(async () => {
      app = await start(
        QueueBoxAdminModule.forRootAsync({ path: 'ops/queuebox', useFactory: async () => ({ bearerToken: TOKEN }) }),
      );
    });

    it('answers 401 without the token or with a wrong one, and changes nothing', async () => {
      const id = await deadRow();
      for (const token of [null, 'wrong-token', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
        const response = await api('dead/outbox/replay', {
          method: 'POST',
          token,
          body: JSON.stringify({ ids: [id] }),
        });
        expect(response.status, String(token)).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('Bearer');
        expect(await response.json()).toMatchObject({ error: 'UNAUTHORIZED' });
      }
      expect((await api('dead/outbox', { token: null })).status).toBe(401);
      expect((await api('loops', { headers: { authorization: `Basic ${TOKEN}` }, token: null })).status).toBe(401);
      expect(await stateOf(id)).toBe('dead');
    });

    it('reports loops, backlog, blocked keys and claims at risk', async () => {
      await testDatabase().seedOutbox(db, schema, { key: 'a', count: 2, destination: 'sink' });
      await deadRow();
      const loops = await json('loops');
      expect(loops.status).toBe(200);
      expect(loops.body).toMatchObject({ workersEnabled: false, loops: [{ name: 'outbox', state: 'idle' }] });
      expect((await json('backlog')).body).toEqual({
        outbox: [expect.objectContaining({ name: 'sink', pending: 2 })],
        inbox: [],
      });
      expect((await json('blocked-keys?limit=10')).body.items).toMatchObject([
        { table: 'outbox', stream: 'sink', key: 'k', reason: 'dead' },
      ]);
      expect((await json('claims-at-risk?withinMs=1000')).body).toEqual({ expiring: [], lost: [] });
      expect(await json('blocked-keys?limit=ten')).toMatchObject({
        status: 400,
        body: { error: 'INVALID_ARGUMENT', field: 'limit' },
      });
      expect(await json('claims-at-risk?window=5')).toMatchObject({
        status: 400,
        body: { error: 'INVALID_ARGUMENT', field: 'window' },
      });
    });

    it('lists dead letters by page and filter, inspects one with its payload on demand', async () => {
      const first = await deadRow('HTTP 503');
      const second = await deadRow('HTTP 400');
      const since = new Date(Date.now() - 3_600_000).toISOString();

      const page = await json(
        `dead/outbox?limit=1&errorContains=${encodeURIComponent('HTTP 5')}&deadSince=${encodeURIComponent(since)}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.items!.map((row) => row.id)).toEqual([first]);
      expect(page.body.next).toBe(first);
      expect((await json(`dead/outbox?after=${first}`)).body.items!.map((row) => row.id)).toEqual([second]);
      expect(JSON.stringify(page.body)).not.toContain('4242');

      const detail = await json(`dead/outbox/${first}`);
      expect(detail.body).toMatchObject({ id: first, stream: 'sink', lastError: 'HTTP 503' });
      expect(detail.body).not.toHaveProperty('payload');
      expect((await json(`dead/outbox/${first}?payload=true`)).body.payload).toBe(SECRET_PAYLOAD);

      expect(await json('dead/outbox?deadSince=yesterday')).toMatchObject({
        status: 400,
        body: { field: 'deadSince' },
      });
      // Dates that do not exist, which Date would roll over into other days.
      for (const day of [
        '2026-02-31',
        '2026-02-31T00:00:00Z',
        '2026-02-29T00:00Z',
        '2026-04-31T12:00:00+02:00',
        '2026-02-28T24:00Z',
        '2026-02-28T23:60Z',
      ]) {
        expect(await json(`dead/outbox?deadSince=${encodeURIComponent(day)}`), day).toMatchObject({
          status: 400,
          body: { error: 'INVALID_ARGUMENT', field: 'deadSince' },
        });
      }
      expect((await json(`dead/outbox?deadSince=${encodeURIComponent('2028-02-29T00:00:00Z')}`)).status).toBe(200);
      expect(await json('dead/outbox?source=x')).toMatchObject({ status: 400, body: { field: 'source' } });
      expect(await json('dead/outbox?destinaton=sink')).toMatchObject({ status: 400, body: { field: 'destinaton' } });
      expect(await json('dead/queue')).toMatchObject({ status: 400, body: { field: 'table' } });
      expect(await json('dead/outbox/999999')).toMatchObject({
        status: 404,
        body: { error: 'DEAD_LETTER_NOT_FOUND', field: 'id' },
      });
    });

    it('answers 400 naming the field for text with NUL and ids beyond bigint, which the database would refuse', async () => {
      const id = await deadRow('HTTP 503');
      const maxId = '9223372036854775807';
      const beyond = '9223372036854775808';
      expect(await json('dead/outbox?errorContains=HTTP%00503')).toMatchObject({
        status: 400,
        body: { error: 'INVALID_ARGUMENT', field: 'errorContains' },
      });
      expect(await json('dead/outbox?destination=sink%00')).toMatchObject({
        status: 400,
        body: { field: 'destination' },
      });
      expect(await json('dead/inbox?source=%00')).toMatchObject({ status: 400, body: { field: 'source' } });
      expect(await json(`dead/outbox?after=${beyond}`)).toMatchObject({ status: 400, body: { field: 'after' } });
      expect(await json('dead/outbox/9999999999999999999')).toMatchObject({ status: 400, body: { field: 'id' } });
      expect(await json(`rows/outbox?ids=${id},${beyond}`)).toMatchObject({ status: 400, body: { field: 'ids' } });
      const post = (action: string, body: unknown) =>
        json(`dead/outbox/${action}`, { method: 'POST', body: JSON.stringify(body) });
      expect(await post('replay', { ids: [id, beyond] })).toMatchObject({ status: 400, body: { field: 'ids' } });
      expect(await post('discard', { filter: { errorContains: 'HTTP\u0000' } })).toMatchObject({
        status: 400,
        body: { field: 'errorContains' },
      });
      expect(await stateOf(id)).toBe('dead');
      // The largest bigint is an id like any other.
      expect(await json(`dead/outbox/${maxId}`)).toMatchObject({ status: 404, body: { field: 'id' } });
      expect((await json(`dead/outbox?after=${maxId}`)).body).toEqual({ items: [] });
    });

    it('answers a body that is not a JSON object, or not UTF-8, with the typed error of every other bad input, changing nothing', async () => {
      const id = await deadRow('HTTP 503');
      const send = async (body: string, contentType = 'application/json') => {
        const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': contentType, 'x-queuebox-admin': '1' };
        const response = await fetch(`${app.url}/ops/queuebox/api/dead/outbox/replay`, {
          method: 'POST',
          body,
          headers,
        });
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          body: (await response.json().catch(() => undefined)) as unknown,
        };
      };
      for (const body of ['"text"', '42', 'null', 'true', '[1]', '{not json']) {
        expect(await send(body), body).toMatchObject({
          status: 400,
          type: expect.stringContaining('application/json'),
          body: { error: 'INVALID_ARGUMENT', field: 'body' },
        });
      }
      expect(await send('')).toMatchObject({ status: 400, body: { error: 'INVALID_ARGUMENT', field: 'selection' } });
      for (const charset of ['latin1', 'utf-16', 'nonsense']) {
        const answer = await send(JSON.stringify({ ids: [id] }), `application/json; charset=${charset}`);
        expect(answer, charset).toMatchObject({
          status: 415,
          body: { error: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('application/json') },
        });
      }
      expect(await stateOf(id)).toBe('dead');
    });

    it('replays by ids and discards by filter, logging who, what and how many, never the payload', async () => {
      const log = vi.spyOn(Logger.prototype, 'log');
      const replayed = await deadRow('HTTP 503');
      const discarded = await deadRow('gone');
      const kept = await deadRow('HTTP 503');

      const replay = await json('dead/outbox/replay', { method: 'POST', body: JSON.stringify({ ids: [replayed] }) });
      expect(replay).toEqual({ status: 200, body: { count: 1, chunks: 1, ids: [replayed] } });
      const discard = await json('dead/outbox/discard', {
        method: 'POST',
        body: JSON.stringify({ filter: { errorContains: 'gone' }, chunkSize: 10 }),
      });
      expect(discard).toEqual({ status: 200, body: { count: 1, chunks: 2 } });
      expect(await stateOf(replayed)).toBe('pending');
      expect((await json(`rows/outbox?ids=${discarded}`)).body.items).toEqual([]);
      expect((await json(`rows/outbox?ids=${replayed},${kept}`)).body.items).toEqual([
        { id: replayed, state: 'pending', attempts: 0 },
        { id: kept, state: 'dead', attempts: 1 },
      ]);
      expect(await json('rows/outbox?ids=1;2')).toMatchObject({ status: 400, body: { field: 'ids' } });
      expect((await testDatabase().outboxRows(db, schema)).map((row) => row.id)).toEqual([replayed, kept]);

      // A misspelled filter field must not widen the discard to every dead row.
      expect(
        await json('dead/outbox/discard', { method: 'POST', body: JSON.stringify({ filter: { errorContain: 'x' } }) }),
      ).toMatchObject({
        status: 400,
        body: { field: 'filter.errorContain' },
      });
      expect(
        await json('dead/outbox/discard', { method: 'POST', body: JSON.stringify({ ids: [kept], filter: {} }) }),
      ).toMatchObject({ status: 400, body: { field: 'selection' } });
      expect(
        await json('dead/outbox/replay', { method: 'POST', body: JSON.stringify({ ids: ['1', 'x'] }) }),
      ).toMatchObject({ status: 400, body: { field: 'ids' } });
      expect(await stateOf(kept)).toBe('dead');

      const lines = log.mock.calls.map((call) => JSON.stringify(call));
      expect(lines.filter((line) => line.includes('dead letters replayed'))).toEqual([
        expect.stringMatching(/"count":1.*"actor":"bearer token from 127\.0\.0\.1"/),
      ]);
      expect(lines.filter((line) => line.includes('dead letters discarded'))).toEqual([
        expect.stringContaining('"selection":"filter"'),
      ]);
      expect(lines.some((line) => line.includes('4242') || line.includes(TOKEN))).toBe(false);
    });
  });

  describe("with the application's guard", () => {
    it('answers 403 when the guard says no, changing nothing, and names the guard’s user in the log', async () => {
      const app = await start(QueueBoxAdminModule.forRoot({ guard: RoleGuard }));
      const log = vi.spyOn(Logger.prototype, 'log');
      const id = await deadRow();
      const replay = (role: string) =>
        fetch(`${app.url}/queuebox/admin/api/dead/outbox/replay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-queuebox-admin': '1', 'x-role': role },
          body: JSON.stringify({ ids: [id] }),
        });

      const refused = await replay('viewer');
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'FORBIDDEN' });
      expect(await stateOf(id)).toBe('dead');

      const allowed = await replay('admin');
      expect(allowed.status).toBe(200);
      expect(await stateOf(id)).toBe('pending');
      expect(
        log.mock.calls
          .map((call) => JSON.stringify(call))
          .some((line) => line.includes('"actor":"alice from 127.0.0.1"')),
      ).toBe(true);
    });

    it('with a session cookie, refuses a replay or discard sent as a form or without the admin header, changing nothing', async () => {
      const app = await start(QueueBoxAdminModule.forRoot({ guard: SessionCookieGuard }));
      const id = await deadRow('HTTP 503');
      const post = (action: string, headers: Record<string, string>, body: string) =>
        fetch(`${app.url}/queuebox/admin/api/dead/outbox/${action}`, {
          method: 'POST',
          headers: { cookie: 'session=admin', ...headers },
          body,
        });

      // What an HTML form on another page of the site sends: the browser adds the cookie.
      const form = await post(
        'discard',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'filter%5BerrorContains%5D=HTTP',
      );
      expect(form.status).toBe(415);
      expect(await form.json()).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
      // A form may send JSON-looking text as text/plain; and a header does not turn a form into JSON.
      expect(
        (await post('replay', { 'content-type': 'text/plain', 'x-queuebox-admin': '1' }, JSON.stringify({ ids: [id] })))
          .status,
      ).toBe(415);
      const noHeader = await post('replay', { 'content-type': 'application/json' }, JSON.stringify({ ids: [id] }));
      expect(noHeader.status).toBe(403);
      expect(await noHeader.json()).toMatchObject({
        error: 'ADMIN_HEADER_REQUIRED',
        field: 'X-QueueBox-Admin',
        message: expect.stringContaining('X-QueueBox-Admin: 1'),
      });
      expect(
        (
          await post(
            'replay',
            { 'content-type': 'application/json', 'x-queuebox-admin': 'yes' },
            JSON.stringify({ ids: [id] }),
          )
        ).status,
      ).toBe(403);
      expect(await stateOf(id)).toBe('dead');

      // Reads need neither: a page of another origin cannot read the answer anyway.
      expect(
        (await fetch(`${app.url}/queuebox/admin/api/dead/outbox`, { headers: { cookie: 'session=admin' } })).status,
      ).toBe(200);
      const replay = await post(
        'replay',
        { 'content-type': 'application/json; charset=utf-8', 'x-queuebox-admin': '1' },
        JSON.stringify({ ids: [id] }),
      );
      expect(replay.status).toBe(200);
      expect(await replay.json()).toMatchObject({ count: 1, ids: [id] });
      expect(await stateOf(id)).toBe('pending');
    });
  });
});
