import { describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError } from '../../lib/shared/errors/invalid-queuebox-options.error.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { testSecret } from '../fixtures/webhook-secrets.js';

const SECRET_A = testSecret('a');
const SECRET_B = testSecret('b');

function failure(options: unknown): InvalidQueueBoxOptionsError {
  try {
    resolveOptions(options as never);
  } catch (error) {
    if (error instanceof InvalidQueueBoxOptionsError) return error;
    throw error;
  }
  throw new Error('expected the options to be refused');
}

describe('resolveOptions', () => {
  it('applies the documented defaults', () => {
    const resolved = resolveOptions({});
    expect(resolved.outbox).toMatchObject({
      leaseMs: 300_000,
      shutdownTimeoutMs: 10_000,
      claimLock: false,
      maxAttempts: 10,
    });
    expect(resolved.tables).toEqual({
      schema: undefined,
      outbox: 'queuebox_outbox_messages',
      inbox: 'queuebox_inbox_messages',
    });
    expect(resolved.workers).toEqual({ enabled: true, shutdownTimeoutMs: 10_000, metricsIntervalMs: 15_000 });
    expect(resolved.notify).toEqual({ enabled: true, coalesceMs: 2 });
    expect(resolved.deprecations).toEqual([]);
    expect(resolved.statementTimeoutMs).toBe(30_000);
  });

  it('leaves preparedStatements to the start-up probe unless it is set, and takes a postgres:// notify.listenUrl without ever echoing it', () => {
    expect(resolveOptions({}).preparedStatements).toBeUndefined();
    expect(resolveOptions({ preparedStatements: false }).preparedStatements).toBe(false);
    expect(failure({ preparedStatements: 'yes' }).path).toBe('preparedStatements');
    const listenUrl = 'postgres://app:s3cret@db-direct.internal:5432/app?sslmode=require';
    expect(resolveOptions({ notify: { listenUrl } }).notify.listenUrl).toBe(listenUrl);
    for (const wrong of ['mysql://app:s3cret@db.internal/app', 'app:s3cret@db.internal', '', 42]) {
      const error = failure({ notify: { listenUrl: wrong } });
      expect(error.path).toBe('notify.listenUrl');
      expect(error.message).toContain('postgres://');
      expect(error.message).not.toContain('s3cret');
      expect(error.message).not.toContain('db.internal');
    }
  });

  it('shares the loops’ options under workers and notify, and every loop takes workers.shutdownTimeoutMs unless it sets its own', () => {
    const resolved = resolveOptions({
      workers: { shutdownTimeoutMs: 30_000, metricsIntervalMs: 500 },
      notify: { coalesceMs: 10 },
      inbox: { relay: { shutdownTimeoutMs: 5_000 } },
    });
    expect(resolved.workers).toEqual({ enabled: true, shutdownTimeoutMs: 30_000, metricsIntervalMs: 500 });
    expect(resolved.notify).toEqual({ enabled: true, coalesceMs: 10 });
    expect([resolved.outbox.shutdownTimeoutMs, resolved.inbox.relay.shutdownTimeoutMs]).toEqual([30_000, 5_000]);
    expect(
      resolveOptions({ workers: { shutdownTimeoutMs: 30_000 }, outbox: { shutdownTimeoutMs: 1_000 } }).outbox
        .shutdownTimeoutMs,
    ).toBe(1_000);
  });

  it('accepts the deprecated outbox.notify and outbox.metricsIntervalMs with a deprecation line each, and refuses them next to their new names', () => {
    const resolved = resolveOptions({ outbox: { notify: { enabled: false }, metricsIntervalMs: 200 } });
    expect(resolved.notify.enabled).toBe(false);
    expect(resolved.workers.metricsIntervalMs).toBe(200);
    expect(resolved.deprecations).toEqual([
      expect.stringContaining('"outbox.metricsIntervalMs" is deprecated'),
      expect.stringContaining('"outbox.notify" is deprecated'),
    ]);
    expect(failure({ notify: {}, outbox: { notify: {} } }).path).toBe('outbox.notify');
    expect(failure({ workers: { metricsIntervalMs: 100 }, outbox: { metricsIntervalMs: 100 } }).path).toBe(
      'outbox.metricsIntervalMs',
    );
    expect(failure({ outbox: { notify: { coalesceMs: -1 } } }).path).toBe('outbox.notify.coalesceMs');
  });

  it('keeps outbox.shutdownTimeoutMs as every loop’s default while workers.shutdownTimeoutMs is not given, and says it is deprecated', () => {
    const resolved = resolveOptions({ outbox: { shutdownTimeoutMs: 20_000 } });
    expect([
      resolved.workers.shutdownTimeoutMs,
      resolved.outbox.shutdownTimeoutMs,
      resolved.inbox.relay.shutdownTimeoutMs,
    ]).toEqual([20_000, 20_000, 20_000]);
    expect(resolved.deprecations).toEqual([expect.stringContaining('set "workers.shutdownTimeoutMs"')]);
  });

  it.each([
    [{ tables: { outbox: 'x; drop table y' } }, 'tables.outbox'],
    [{ tables: { inbox: '1abc' } }, 'tables.inbox'],
    [{ tables: { outbox: 'a'.repeat(49) } }, 'tables.outbox'],
    [{ schema: 'bad-schema' }, 'schema'],
    [{ tables: { outbox: 'same', inbox: 'same' } }, 'tables.inbox'],
    [{ outbox: { claimTimeoutMs: 999 } }, 'outbox.claimTimeoutMs'],
    [{ outbox: { claimTimeoutMs: 1.5 } }, 'outbox.claimTimeoutMs'],
    [{ outbox: { shutdownTimeoutMs: '10' } }, 'outbox.shutdownTimeoutMs'],
    [{ outbox: { batchSize: 0 } }, 'outbox.batchSize'],
    [{ outbox: { claimLock: 'yes' } }, 'outbox.claimLock'],
    [{ outbox: { backoff: { jitter: 'random' } } }, 'outbox.backoff.jitter'],
    [{ outbox: { backoff: { initialDelayMs: 500, maxDelayMs: 100 } } }, 'outbox.backoff.maxDelayMs'],
    [{ outbox: { notify: [] } }, 'outbox.notify'],
    [{ workers: { enabled: 1 } }, 'workers.enabled'],
    [{ statementTimeoutMs: 99 }, 'statementTimeoutMs'],
    [{ statementTimeoutMs: 1.5 }, 'statementTimeoutMs'],
    [{ destinations: { d: { type: 'smtp' } } }, 'destinations.d.type'],
    [{ destinations: { d: { type: 'http', url: 'not a url' } } }, 'destinations.d.url'],
    [{ destinations: { d: { type: 'http', url: 'http://x', headers: { a: 1 } } } }, 'destinations.d.headers.a'],
    [{ destinations: { d: { type: 'http', url: 'http://x', secret: '' } } }, 'destinations.d.secret'],
    [
      { destinations: { d: { type: 'http', url: 'http://x', secret: 'a-plain-shared-secret' } } },
      'destinations.d.secret',
    ],
    [{ destinations: { d: { type: 'http', url: 'http://x', secret: [SECRET_A, 'x'] } } }, 'destinations.d.secret.1'],
    [{ destinations: { d: { type: 'http', url: 'https://user:hunter2@x.example/hooks' } } }, 'destinations.d.url'],
    [
      { destinations: { d: { type: 'http', url: 'http://x', headers: { 'Content-Length': '1' } } } },
      'destinations.d.headers.Content-Length',
    ],
    [
      { destinations: { d: { type: 'http', url: 'http://x', headers: { 'Transfer-Encoding': 'chunked' } } } },
      'destinations.d.headers.Transfer-Encoding',
    ],
    [
      { destinations: { d: { type: 'http', url: 'http://x', headers: { 'x-message-id': 'forged' } } } },
      'destinations.d.headers.x-message-id',
    ],
    [
      { destinations: { d: { type: 'http', url: 'http://x', headers: { 'x-api-key': 'k\u00e9y' } } } },
      'destinations.d.headers.x-api-key',
    ],
    [
      { destinations: { d: { type: 'http', url: 'http://x', headers: { 'x-api-key': 'a\u0001b' } } } },
      'destinations.d.headers.x-api-key',
    ],
    [{ inbox: { sources: { a: { secret: SECRET_A }, b: { secret: SECRET_A } } } }, 'inbox.sources.b.secret'],
    [{ outbox: { concurrency: 1, batchSize: 50 } }, 'outbox.batchSize'],
    [{ inbox: { relay: { concurrency: 5, batchSize: 10 } } }, 'inbox.relay.batchSize'],
    [{ destinations: { d: { type: 'custom', publisher: 42 } } }, 'destinations.d.publisher'],
    [{ destinations: 'http://x' }, 'destinations'],
    [{ retention: { outboxSentMs: 10 } }, 'retention.outboxSentMs'],
    [{ retention: { deadMs: 1e15 } }, 'retention.deadMs'],
    [{ retention: { intervalMs: 0 } }, 'retention.intervalMs'],
    [{ inbox: { bodyTimeoutMs: 99 } }, 'inbox.bodyTimeoutMs'],
    [{ inbox: { bodyTimeoutMs: 300_001 } }, 'inbox.bodyTimeoutMs'],
  ])('refuses %j at %s', (options, path) => {
    const error = failure(options);
    expect(error.path).toBe(path);
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(`"${path}"`);
    expect(error.message).toMatch(/must be/);
  });

  it('never echoes a secret or header value in its error', () => {
    const error = failure({ destinations: { d: { type: 'http', url: 'http://x', headers: { authorization: 42 } } } });
    expect(error.message).not.toContain('42');
    for (const options of [
      { destinations: { d: { type: 'http', url: 'https://user:hunter2@x.example/hooks' } } },
      { destinations: { d: { type: 'http', url: 'ftp://user:hunter2@x.example/' } } },
      { destinations: { d: { type: 'http', url: 'hunter2' } } },
      { destinations: { d: { type: 'http', url: 'http://x', secret: 'whsec_hunter2' } } },
      { destinations: { d: { type: 'http', url: 'http://x', headers: { authorization: 'Bearer hunter2\n' } } } },
    ]) {
      expect(failure(options).message).not.toContain('hunter2');
    }
  });

  it('refuses destination names that are not valid keys', () => {
    expect(failure({ destinations: { 'bad\u0000name': { type: 'http', url: 'http://x' } } }).path).toBe(
      'destinations.bad\u0000name',
    );
  });

  it('caps the default batch at the concurrency, so that every claim can fill', () => {
    expect(resolveOptions({ outbox: { concurrency: 1 } }).outbox).toMatchObject({ concurrency: 1, batchSize: 1 });
    expect(resolveOptions({ outbox: { concurrency: 100 } }).outbox).toMatchObject({ concurrency: 100, batchSize: 50 });
    expect(resolveOptions({ inbox: { relay: { concurrency: 20 } } }).inbox.relay).toMatchObject({
      concurrency: 20,
      batchSize: 20,
    });
  });

  it('paces adaptively from the start values when neither concurrency nor batchSize is set, and fixes both when either is', () => {
    expect(resolveOptions({}).outbox).toMatchObject({ concurrency: 100, batchSize: 50, adaptive: true });
    expect(resolveOptions({}).inbox.relay).toMatchObject({ concurrency: 20, batchSize: 10, adaptive: true });
    expect(resolveOptions({ outbox: { batchSize: 10 } }).outbox).toMatchObject({
      concurrency: 100,
      batchSize: 10,
      adaptive: false,
    });
    expect(resolveOptions({ outbox: { concurrency: 30 } }).outbox).toMatchObject({
      concurrency: 30,
      batchSize: 30,
      adaptive: false,
    });
    expect(resolveOptions({ inbox: { relay: { batchSize: 5 } } }).inbox.relay).toMatchObject({
      concurrency: 20,
      batchSize: 5,
      adaptive: false,
    });
  });

  it('reads one secret or several (rotation) into their keys', () => {
    const one = resolveOptions({
      destinations: { d: { type: 'http', url: 'http://x', secret: SECRET_A } },
    }).destinations.get('d');
    const two = resolveOptions({ inbox: { sources: { s: { secret: [SECRET_A, SECRET_B] } } } }).inbox.sources?.get('s');
    expect(one).toMatchObject({ secrets: [expect.any(Buffer)] });
    expect(two?.secrets).toHaveLength(2);
  });

  describe("an inbox source's secret", () => {
    it.each([
      ['read from an unset variable', { secret: undefined, unsigned: true }],
      ['read from an empty variable', { secret: '', unsigned: true }],
      ['set', { secret: SECRET_A, unsigned: true }],
    ])('refuses a secret %s next to unsigned: true, naming the field', (_, source) => {
      const path = source.secret === SECRET_A ? 'inbox.sources.partners' : 'inbox.sources.partners.secret';
      expect(failure({ inbox: { sources: { partners: source } } })).toMatchObject({
        path,
        message: expect.stringContaining(`"${path}`),
      });
      expect(() => resolveOptions({ inbox: { sources: { partners: source } } }, { intake: true })).toThrow(
        expect.objectContaining({ path }),
      );
    });

    it('accepts unsigned: true without a secret key, and a secret without unsigned', () => {
      expect(
        resolveOptions({ inbox: { sources: { partners: { unsigned: true } } } }, { intake: true }).inbox.sources?.get(
          'partners',
        ),
      ).toEqual({ secrets: undefined });
      expect(
        resolveOptions(
          { inbox: { sources: { partners: { secret: SECRET_A, unsigned: false } } } },
          { intake: true },
        ).inbox.sources?.get('partners'),
      ).toMatchObject({ secrets: [expect.any(Buffer)] });
    });
  });

  describe("an http destination's secret", () => {
    const http = (fields: Record<string, unknown>): never =>
      ({ destinations: { billing: { type: 'http', url: 'http://x', ...fields } } }) as never;

    it.each([
      ['a secret key read from an unset variable', { secret: undefined }],
      ['a secret key read from an empty variable', { secret: '' }],
      ['unsigned: false without a secret', { unsigned: false }],
    ])('refuses %s, naming destinations.<name>.secret and the opt-out', (_, fields) => {
      const error = failure(http(fields));
      expect(error.path).toBe('destinations.billing.secret');
      expect(error.message).toContain('"destinations.billing.secret"');
      expect(error.message).toContain('unsigned: true');
    });

    it('refuses a secret together with unsigned: true, and an unsigned that is not a boolean', () => {
      expect(failure(http({ secret: SECRET_A, unsigned: true })).path).toBe('destinations.billing');
      expect(failure(http({ secret: undefined, unsigned: 'yes' })).path).toBe('destinations.billing.unsigned');
    });

    it('sends unsigned when told so (even with the unset secret next to it), or when neither key is given', () => {
      expect(resolveOptions(http({ secret: undefined, unsigned: true })).destinations.get('billing')).toMatchObject({
        secrets: undefined,
      });
      expect(resolveOptions(http({ unsigned: true })).destinations.get('billing')).toMatchObject({
        secrets: undefined,
      });
      expect(resolveOptions(http({})).destinations.get('billing')).toMatchObject({ secrets: undefined });
      expect(resolveOptions(http({ secret: SECRET_A, unsigned: false })).destinations.get('billing')).toMatchObject({
        secrets: [expect.any(Buffer)],
      });
    });

    it('is no option of the broker destinations', () => {
      expect(
        failure({
          destinations: { events: { type: 'nats', servers: 'nats://127.0.0.1:4222', subject: 's', unsigned: true } },
        }).path,
      ).toBe('destinations.events.unsigned');
    });
  });

  it('keeps valid http destinations and custom publishers', () => {
    class Publisher {}
    const resolved = resolveOptions({
      destinations: {
        a: { type: 'http', url: 'https://example.test/hook', secret: SECRET_A, headers: { k: 'v' } },
        b: { type: 'custom', publisher: Publisher },
      },
    });
    expect(resolved.destinations.get('a')).toMatchObject({
      type: 'http',
      timeoutMs: 10_000,
      secrets: [expect.any(Buffer)],
      headers: { k: 'v' },
    });
    expect(resolved.destinations.get('b')).toMatchObject({ type: 'custom', publisher: Publisher });
  });
});

describe('resolveOptions: broker destinations', () => {
  const rabbit = { type: 'rabbitmq', url: 'amqp://guest:guest@127.0.0.1:5672', exchange: 'events' };
  const nats = { type: 'nats', servers: 'nats://127.0.0.1:4222', subject: 'orders.created' };

  it('applies the rabbitmq and nats defaults', () => {
    const resolved = resolveOptions({ destinations: { orders: rabbit as never, events: nats as never } });
    expect(resolved.destinations.get('orders')).toEqual({
      ...rabbit,
      name: 'orders',
      routingKey: 'orders',
      persistent: true,
      confirmTimeoutMs: 10_000,
    });
    expect(resolved.destinations.get('events')).toEqual({
      ...nats,
      name: 'events',
      servers: ['nats://127.0.0.1:4222'],
      timeoutMs: 10_000,
    });
  });

  it('keeps an explicit routing key, the default exchange and bare NATS host:port servers', () => {
    const resolved = resolveOptions({
      destinations: {
        a: {
          type: 'rabbitmq',
          url: 'amqps://rabbit.example.test/vhost',
          exchange: '',
          routingKey: '',
          persistent: false,
          confirmTimeoutMs: 500,
        },
        b: {
          type: 'nats',
          servers: ['127.0.0.1:4222', 'tls://nats.example.test:4443'],
          subject: 'a.b-c_d',
          timeoutMs: 1,
        },
      },
    });
    expect(resolved.destinations.get('a')).toMatchObject({
      exchange: '',
      routingKey: '',
      persistent: false,
      confirmTimeoutMs: 500,
    });
    expect(resolved.destinations.get('b')).toMatchObject({
      servers: ['127.0.0.1:4222', 'tls://nats.example.test:4443'],
      subject: 'a.b-c_d',
      timeoutMs: 1,
    });
  });

  it.each([
    [{ ...rabbit, url: undefined }, 'destinations.d.url'],
    [{ ...rabbit, url: 'http://rabbit:5672' }, 'destinations.d.url'],
    [{ ...rabbit, url: 'rabbit:5672' }, 'destinations.d.url'],
    [{ ...rabbit, url: 'amqp://' }, 'destinations.d.url'],
    [{ ...rabbit, exchange: undefined }, 'destinations.d.exchange'],
    [{ ...rabbit, exchange: 7 }, 'destinations.d.exchange'],
    [{ ...rabbit, routingKey: 'k'.repeat(256) }, 'destinations.d.routingKey'],
    [{ ...rabbit, persistent: 'yes' }, 'destinations.d.persistent'],
    [{ ...rabbit, confirmTimeoutMs: 0 }, 'destinations.d.confirmTimeoutMs'],
    [{ ...nats, servers: undefined }, 'destinations.d.servers'],
    [{ ...nats, servers: [] }, 'destinations.d.servers'],
    [{ ...nats, servers: ['nats://ok:4222', 42] }, 'destinations.d.servers.1'],
    [{ ...nats, servers: 'ws://nats:80' }, 'destinations.d.servers'],
    [{ ...nats, subject: undefined }, 'destinations.d.subject'],
    [{ ...nats, subject: 'orders.*' }, 'destinations.d.subject'],
    [{ ...nats, subject: 'orders.>' }, 'destinations.d.subject'],
    [{ ...nats, subject: 'orders..created' }, 'destinations.d.subject'],
    [{ ...nats, subject: 'orders created' }, 'destinations.d.subject'],
    [{ ...nats, timeoutMs: 1.5 }, 'destinations.d.timeoutMs'],
  ])('refuses %j at %s', (destination, path) => {
    const error = failure({ destinations: { d: destination } });
    expect(error.path).toBe(path);
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(`"${path}"`);
    expect(error.message).toMatch(/must be/);
  });

  it('never echoes a broker URL or its credentials in its error', () => {
    for (const [destination, path] of [
      [{ ...rabbit, url: 'http://user:s3cret@rabbit.test:5672' }, 'destinations.d.url'],
      [{ ...rabbit, url: 'user:s3cret@rabbit' }, 'destinations.d.url'],
      [{ ...nats, servers: ['ws://user:s3cret@nats.test'] }, 'destinations.d.servers.0'],
    ] as const) {
      const error = failure({ destinations: { d: destination } });
      expect(error.path).toBe(path);
      expect(error.message).not.toContain('s3cret');
      expect(error.message).not.toContain('rabbit.test');
    }
  });
});
