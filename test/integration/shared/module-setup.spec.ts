import { Injectable, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InjectDataSource, TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import {
  OutboxService,
  QueueBoxModule,
  type QueueBoxModuleExtras,
  type QueueBoxModuleOptions,
  type QueueBoxOptionsFactory,
} from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';
import { testSecret } from '../../fixtures/webhook-secrets.js';

/** A service of a feature module: it injects QueueBox's service without importing QueueBoxModule. */
@Injectable()
class OrdersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  place(orderId: string) {
    return this.dataSource.transaction((manager) =>
      this.outbox.enqueue({ destination: 'audit', payload: { orderId } }, { manager }),
    );
  }
}

@Module({ providers: [OrdersService], exports: [OrdersService] })
class OrdersModule {}

/** The same feature module, importing the bare QueueBoxModule class (as users try first). */
@Module({ imports: [QueueBoxModule], providers: [OrdersService], exports: [OrdersService] })
class OrdersImportingModule {}

@Module({ providers: [RecordingPublisher], exports: [RecordingPublisher] })
class PublishersModule {}

describeWithDatabase('module set-up as an application writes it', () => {
  let schema: string;
  beforeAll(async () => {
    schema = await createTestSchema();
  });
  afterEach(() => vi.restoreAllMocks());

  const typeorm = (name?: string) =>
    TypeOrmModule.forRoot({ ...testDatabase().dataSourceOptions(schema, { poolSize: 4 }), name });
  const options = (): QueueBoxModuleOptions => ({
    schema,
    destinations: { audit: { type: 'custom', publisher: RecordingPublisher } },
    outbox: { pollIntervalMs: 50 },
  });
  const compile = (imports: unknown[]) => Test.createTestingModule({ imports: imports as never[] }).compile();

  it.each([
    ['does not import it', OrdersModule],
    ['imports the bare QueueBoxModule', OrdersImportingModule],
  ])('a feature module that %s injects OutboxService from a root forRoot without isGlobal', async (_, feature) => {
    const moduleRef = await compile([typeorm(), PublishersModule, QueueBoxModule.forRoot(options()), feature]);
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const { messageId } = await app.get(OrdersService).place('o-1');
      await waitFor(
        () => app.get(RecordingPublisher).published.some((message) => message.messageId === messageId),
        5_000,
      );
    } finally {
      await app.close();
    }
  });

  it('refuses a source whose secret is unset when the intake is mounted, naming the option', async () => {
    const unset = process.env.QUEUEBOX_TEST_SURELY_UNSET_SECRET;
    const error = await compile([
      typeorm(),
      QueueBoxModule.forRoot({ schema, intake: { path: 'inbox' }, inbox: { sources: { orders: { secret: unset } } } }),
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'inbox.sources.orders.secret' });
    expect((error as Error).message).toContain('unsigned: true');
  });

  it('refuses an http destination whose secret is unset, naming the option; unsigned: true opts out', async () => {
    const unset = process.env.QUEUEBOX_TEST_SURELY_UNSET_SECRET;
    const billing = { type: 'http', url: 'http://127.0.0.1:9/billing/hooks', secret: unset } as const;
    const error = await compile([typeorm(), QueueBoxModule.forRoot({ schema, destinations: { billing } })]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'destinations.billing.secret' });
    expect((error as Error).message).toContain('unsigned: true');

    const moduleRef = await compile([
      typeorm(),
      QueueBoxModule.forRoot({
        schema,
        workers: { enabled: false },
        destinations: { billing: { ...billing, unsigned: true } },
      }),
    ]);
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    await app.close();
  });

  it('refuses a mounted intake that does not declare its sources', async () => {
    const error = await compile([typeorm(), QueueBoxModule.forRoot({ schema, intake: { path: 'inbox' } })]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'inbox.sources' });
  });

  it('accepts an explicitly unsigned source, and says so in one start-up line', async () => {
    const log = vi.spyOn(Logger.prototype, 'log');
    const moduleRef = await compile([
      typeorm(),
      QueueBoxModule.forRoot({
        schema,
        workers: { enabled: false },
        intake: { path: 'inbox' },
        inbox: { sources: { orders: { secret: testSecret('o') }, partners: { unsigned: true } } },
      }),
    ]);
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    await app.close();
    const lines = log.mock.calls
      .map(([message]) => message)
      .filter((message) => typeof message === 'string' && message.startsWith('inbox intake accepts'));
    expect(lines).toEqual([expect.stringMatching(/orders \(signed\).*partners \(UNSIGNED/)]);
  });

  it('refuses a module extra placed inside the forRootAsync factory, saying where it belongs', async () => {
    const error = await compile([
      typeorm(),
      QueueBoxModule.forRootAsync({
        useFactory: () => ({ ...options(), intake: { path: 'inbox' } }) as QueueBoxModuleOptions,
      }),
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'intake' });
    expect((error as Error).message).toMatch(/next to useFactory/);
  });

  it('refuses a misspelt option, suggesting the right one', async () => {
    const error = await compile([
      typeorm(),
      QueueBoxModule.forRoot({ schema, outbox: { batchsize: 10 } } as never),
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'outbox.batchsize' });
    expect((error as Error).message).toContain('did you mean "batchSize"');
  });

  it('refuses a dataSource name that no TypeORM DataSource has, with a typed error', async () => {
    const extras: QueueBoxModuleExtras = { dataSource: 'orders' };
    const error = await compile([typeorm(), QueueBoxModule.forRoot({ ...options(), ...extras })]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'InvalidQueueBoxOptionsError', path: 'dataSource' });
    expect((error as Error).message).toContain('"orders"');
  });

  it('takes its options from a class implementing QueueBoxOptionsFactory (useClass)', async () => {
    @Injectable()
    class QueueBoxConfig implements QueueBoxOptionsFactory {
      createQueueBoxOptions(): QueueBoxModuleOptions {
        return options();
      }
    }
    const moduleRef = await compile([
      typeorm(),
      PublishersModule,
      QueueBoxModule.forRootAsync({ useClass: QueueBoxConfig }),
      OrdersModule,
    ]);
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      // Only the class's options name the 'audit' destination and the test schema: the row is
      // accepted, written to that schema's table, published through the destination and marked sent.
      const { messageId } = await app.get(OrdersService).place('o-class');
      await waitFor(() =>
        app
          .get(RecordingPublisher)
          .published.some((message) => message.messageId === messageId && message.destination === 'audit'),
      );
      const dataSource = app.get<DataSource>(getDataSourceToken());
      await waitFor(
        async () =>
          (await testDatabase().outboxRows(dataSource, schema)).some(
            (row) => row.message_id === messageId && row.state === 'sent',
          ),
        undefined,
        'the row sent in the schema of the class options',
      );
    } finally {
      await app.close();
    }
  });
});
