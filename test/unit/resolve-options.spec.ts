import { describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError } from '../../lib/errors/invalid-queuebox-options.error.js';
import { resolveOptions } from '../../lib/options/resolve-options.js';

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
  it('applies the spec defaults', () => {
    const resolved = resolveOptions({});
    expect(resolved.outbox).toMatchObject({ claimTimeoutMs: 300_000, shutdownTimeoutMs: 10_000, claimLock: false, maxAttempts: 10 });
    expect(resolved.tables).toEqual({ schema: undefined, outbox: 'queuebox_outbox_messages', inbox: 'queuebox_inbox_messages' });
    expect(resolved.workersEnabled).toBe(true);
    expect(resolved.outbox.notify).toEqual({ enabled: true, coalesceMs: 20 });
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
    [{ destinations: { d: { type: 'smtp' } } }, 'destinations.d.type'],
    [{ destinations: { d: { type: 'http', url: 'not a url' } } }, 'destinations.d.url'],
    [{ destinations: { d: { type: 'http', url: 'http://x', headers: { a: 1 } } } }, 'destinations.d.headers.a'],
    [{ destinations: { d: { type: 'http', url: 'http://x', secret: '' } } }, 'destinations.d.secret'],
    [{ destinations: { d: { type: 'custom', publisher: 42 } } }, 'destinations.d.publisher'],
    [{ destinations: 'http://x' }, 'destinations'],
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
  });

  it('keeps valid http destinations and custom publishers', () => {
    class Publisher {}
    const resolved = resolveOptions({
      destinations: { a: { type: 'http', url: 'https://example.test/hook', secret: 's', headers: { k: 'v' } }, b: { type: 'custom', publisher: Publisher } },
    });
    expect(resolved.destinations.get('a')).toMatchObject({ type: 'http', timeoutMs: 10_000, secret: 's', headers: { k: 'v' } });
    expect(resolved.destinations.get('b')).toMatchObject({ type: 'custom', publisher: Publisher });
  });
});
