import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { OutboxService, QueueBoxModule, type QueueBoxModuleOptions } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/** Stands for an application's configuration service. */
@Injectable()
class AppConfig {
  constructor(readonly schema: string) {}
  queueBox(): QueueBoxModuleOptions {
    return {
      schema: this.schema,
      destinations: { audit: { type: 'custom', publisher: RecordingPublisher } },
      outbox: { pollIntervalMs: 50 },
    };
  }
}

describeWithDatabase('forRootAsync on a named DataSource', () => {
  it('builds its options from a factory and uses the named DataSource, never a connection of its own', async () => {
    const schema = await createTestSchema();
    @Module({
      providers: [{ provide: AppConfig, useValue: new AppConfig(schema) }, RecordingPublisher],
      exports: [AppConfig, RecordingPublisher],
    })
    class ConfigModule {}

    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ ...testDatabase().dataSourceOptions(schema), name: 'queues' }),
        QueueBoxModule.forRootAsync({
          dataSource: 'queues',
          isGlobal: true,
          imports: [ConfigModule],
          inject: [AppConfig],
          useFactory: (config: AppConfig) => config.queueBox(),
        }),
        ConfigModule,
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const dataSource = app.get<DataSource>(getDataSourceToken('queues'));
      const { messageId } = await dataSource.transaction((manager) =>
        app.get(OutboxService).enqueue({ destination: 'audit', payload: { n: 1 } }, { manager }),
      );
      const publisher = app.get(RecordingPublisher);
      await waitFor(() => publisher.published.length === 1, 5_000);
      expect(publisher.published[0].messageId).toBe(messageId);
    } finally {
      await app.close();
    }
  });

  it('fails start-up with the option path when the factory returns invalid options', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(testDatabase().dataSourceOptions()),
        QueueBoxModule.forRootAsync({ useFactory: async () => ({ outbox: { concurrency: 0 } }) }),
      ],
    });
    await expect(moduleRef.compile()).rejects.toMatchObject({
      name: 'InvalidQueueBoxOptionsError',
      path: 'outbox.concurrency',
    });
  });
});
