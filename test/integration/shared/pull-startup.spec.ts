import { Injectable, Scope } from '@nestjs/common';
import { beforeAll, expect, it } from 'vitest';
import {
  DuplicatePullWorkerError,
  InboxService,
  InvalidPullWorkerError,
  PullWorker,
  PullWorkerHost,
  type InboxMessage,
} from '../../../lib/index.js';
import { PullWorkerExplorer } from '../../../lib/features/pull/pull-worker.explorer.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { startQueueBoxApp } from '../../fixtures/queuebox-app.js';

@PullWorker('orders', { pollIntervalMs: 50 })
@Injectable()
class OrdersWorker extends PullWorkerHost {
  readonly handled: string[] = [];
  readonly payloads: unknown[] = [];
  async handle(message: InboxMessage<{ ok: boolean }>): Promise<void> {
    this.handled.push(message.idempotencyKey);
    this.payloads.push(message.payload);
  }
}

@PullWorker('orders')
@Injectable()
class OtherOrdersWorker extends PullWorkerHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

@PullWorker('orders')
@Injectable()
class NotAHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

@PullWorker('orders')
@Injectable({ scope: Scope.REQUEST })
class RequestScopedWorker extends PullWorkerHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

@PullWorker('orders', { leaseMs: 5 })
@Injectable()
class TinyLeaseWorker extends PullWorkerHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

@PullWorker('unknown-source')
@Injectable()
class UndeclaredSourceWorker extends PullWorkerHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

describeWithDatabase('pull workers: start-up fails clearly for invalid workers', () => {
  let schema: string;
  beforeAll(async () => {
    schema = await createTestSchema();
  });
  const start = (providers: unknown[], sources?: string[]) =>
    startQueueBoxApp(
      schema,
      { workers: { enabled: false }, inbox: sources && { sources: Object.fromEntries(sources.map((s) => [s, {}])) } },
      providers as never[],
    );

  it('refuses two workers of one source', async () => {
    const error = await start([OrdersWorker, OtherOrdersWorker]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicatePullWorkerError);
    expect(error).toMatchObject({ source: 'orders', workerClasses: ['OrdersWorker', 'OtherOrdersWorker'] });
    expect((error as Error).message).toContain('"orders"');
  });

  it('refuses a class that does not extend PullWorkerHost', async () => {
    const error = await start([NotAHost]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPullWorkerError);
    expect((error as Error).message).toMatch(/NotAHost must extend PullWorkerHost/);
  });

  it('refuses a request-scoped worker', async () => {
    const error = await start([RequestScopedWorker]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPullWorkerError);
    expect((error as Error).message).toMatch(/RequestScopedWorker is request-scoped/);
  });

  it('refuses invalid options and undeclared sources, naming the field', async () => {
    await expect(start([TinyLeaseWorker])).rejects.toMatchObject({ name: 'InvalidPullWorkerError', field: 'leaseMs' });
    await expect(start([UndeclaredSourceWorker], ['orders'])).rejects.toMatchObject({
      name: 'InvalidPullWorkerError',
      field: 'source',
    });
  });

  it('starts a valid worker, which runs and handles the messages of its source', async () => {
    const app = await startQueueBoxApp(schema, {}, [OrdersWorker]);
    try {
      const [runner] = app.app.get(PullWorkerExplorer).workers;
      expect(runner).toMatchObject({ source: 'orders' });
      expect(runner.status.state).toBe('running');
      await app.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'started-1', payload: { ok: true } });
      await waitFor(
        () => app.app.get(OrdersWorker).handled.includes('started-1'),
        10_000,
        'the worker to handle the message',
      );
      // The handler gets the payload parsed, not its JSON text.
      expect(app.app.get(OrdersWorker).payloads).toEqual([{ ok: true }]);
    } finally {
      await app.close();
    }
  });
});
