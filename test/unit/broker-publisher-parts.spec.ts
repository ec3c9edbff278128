import { describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError } from '../../lib/shared/errors/invalid-queuebox-options.error.js';
import { awaitWithin, WaitEndedError } from '../../lib/features/publishers/await-within.js';
import { describeBrokerUrl, scrubCredentials } from '../../lib/features/publishers/broker-address.js';
import { loadPeerPackages } from '../../lib/features/publishers/optional-peer.js';

describe('broker publisher parts', () => {
  it('describes broker addresses without credentials, query or fragment', () => {
    expect(describeBrokerUrl('amqp://user:s3cret@rabbit.test:5672/orders?heartbeat=5')).toBe(
      'amqp://rabbit.test:5672/orders',
    );
    expect(describeBrokerUrl('amqps://rabbit.test')).toBe('amqps://rabbit.test');
    expect(describeBrokerUrl('127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(scrubCredentials('login failed for amqp://user:p%40ss@h and p@ss', ['amqp://user:p%40ss@h'])).toBe(
      'login failed for *** and ***',
    );
    expect(
      scrubCredentials('token t0k3n refused; auth=s1g', ['nats://h:4222?token=t0k3n', 'amqp://h?auth=s1g&heartbeat=5']),
    ).toBe('token *** refused; auth=***');
  });

  it('waits for work until the signal aborts or the time runs out', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(awaitWithin(Promise.resolve(7), new AbortController().signal, 10)).resolves.toBe(7);
    await expect(awaitWithin(never, new AbortController().signal, 10)).rejects.toMatchObject({ reason: 'timed out' });
    await expect(awaitWithin(never, AbortSignal.abort())).rejects.toBeInstanceOf(WaitEndedError);
    const controller = new AbortController();
    const waiting = awaitWithin(never, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ reason: 'aborted' });
    await expect(awaitWithin(Promise.reject(new Error('boom')), new AbortController().signal, 10)).rejects.toThrow(
      'boom',
    );
  });

  it('fails start-up naming the package to install when a broker client is missing', () => {
    const error = (() => {
      try {
        loadPeerPackages({ name: 'events', type: 'nats' }, ['@nats-io/transport-node', 'queuebox-no-such-package']);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'destinations.events.type' });
    expect((error as Error).message).toContain('npm install queuebox-no-such-package');
    expect((error as Error).message).not.toContain('@nats-io/transport-node');
    const [amqp] = loadPeerPackages<[{ connect: unknown }]>({ name: 'orders', type: 'rabbitmq' }, ['amqplib']);
    expect(typeof amqp.connect).toBe('function');
  });
});
