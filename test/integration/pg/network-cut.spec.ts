import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { NetworkCutProxy } from '../../../chaos/network-cut-proxy.js';
import { OutboxService, QueueBoxModule, StatementTimeoutError } from '../../../lib/index.js';
import { createTestSchema, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';

/**
 * A network cut that sends no FIN or RST (issue 19, item 13): every connection between the app
 * and PostgreSQL goes silent. A statement of QueueBox's must fail at `statementTimeoutMs` with
 * `StatementTimeoutError` instead of waiting forever, and its connection must be destroyed, not
 * handed out again; once the network is back, the app works again. The app runs no loops
 * (`workers.enabled: false`: no poller, no LISTEN), so the enqueue's connection is the only one the
 * pool hands out and its count moves by exactly that one.
 */
describe('a network cut: statements fail at their deadline and their connections are discarded', () => {
  let proxy: NetworkCutProxy;
  let app: INestApplication;

  /** The connections the app's pool holds (pg-pool's count): a discarded one is gone from it at once. */
  const pooled = (): number =>
    (app.get<DataSource>(getDataSourceToken()).driver as unknown as { master: { totalCount: number } }).master
      .totalCount;

  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    const direct = new URL((testDatabase() as unknown as { url: string }).url);
    proxy = new NetworkCutProxy(direct.hostname, Number(direct.port || 5432));
    const proxied = new URL(direct);
    proxied.host = `127.0.0.1:${await proxy.start()}`;
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: proxied.toString(), schema, extra: { max: 4 } }),
        QueueBoxModule.forRoot({
          schema,
          statementTimeoutMs: 1_000,
          workers: { enabled: false },
          destinations: { sink: { type: 'http', url: 'http://127.0.0.1:9/unused' } },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    proxy?.resume();
    await app?.close();
    await proxy?.stop();
  });

  it('fails an enqueue during the cut with StatementTimeoutError, drops its connection, and works again after the cut', async () => {
    const outbox = app.get(OutboxService);
    await outbox.enqueue({ destination: 'sink', payload: { n: 'before' } });
    const before = pooled();
    expect(before).toBeGreaterThan(0);

    proxy.blackhole();
    await expect(outbox.enqueue({ destination: 'sink', payload: { n: 'during' } })).rejects.toBeInstanceOf(
      StatementTimeoutError,
    );
    // Destroyed, not returned to the pool (where it would hold the next statement as long as the
    // cut): gone from the pool once its cancel request went unanswered (CANCEL_WAIT_MS).
    await waitFor(() => pooled() === before - 1, 10_000, 'the connection to leave the pool');

    proxy.resume();
    await outbox.enqueue({ destination: 'sink', payload: { n: 'after' } });
    const stored = (await app
      .get<DataSource>(getDataSourceToken())
      .query(`SELECT payload::jsonb->>'n' AS n FROM "${schema}".queuebox_outbox_messages`)) as { n: string }[];
    expect(stored.map((row) => row.n)).toContain('after');
  });
});
