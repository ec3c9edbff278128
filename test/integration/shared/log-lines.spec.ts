import { ConsoleLogger, Injectable, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { afterEach, expect, it, vi } from 'vitest';
import {
  OutboxService,
  PublishFailedError,
  QueueBoxModule,
  type OutboxMessage,
  type OutboxPublisher,
} from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';

/** A publisher whose error text spans lines, as an upstream's error page may. */
@Injectable()
class FailingPublisher implements OutboxPublisher {
  async publish(_message: OutboxMessage): Promise<void> {
    throw new PublishFailedError('upstream answered:\n  line two\n  line three', { retryable: true });
  }
}

/** Strips the colours Nest's console logger adds on a terminal. */
// eslint-disable-next-line no-control-regex -- the escape sequences of the colours
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/**
 * What an operator reads: each event of QueueBox is one line under Nest's default console logger
 * (its fields inline, after the message), and one JSON record with the same fields under
 * `json: true`. A message is retried once, then dead-lettered.
 */
describeWithDatabase('log lines of an event under Nest console logger', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs one failing message through an app logging with `logger`; returns what it wrote. */
  async function capture(logger: LoggerService): Promise<string[]> {
    const written: string[] = [];
    const keep = (chunk: string | Uint8Array): boolean => {
      written.push(plain(String(chunk)));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(keep);
    vi.spyOn(process.stderr, 'write').mockImplementation(keep);
    const schema = await createTestSchema();
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(testDatabase().dataSourceOptions(schema, { poolSize: 4 })),
        QueueBoxModule.forRoot({
          schema,
          destinations: { billing: { type: 'custom', publisher: FailingPublisher } },
          outbox: {
            pollIntervalMs: 50,
            maxAttempts: 2,
            backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 'none' },
          },
        }),
      ],
      providers: [FailingPublisher],
    }).compile();
    const app = moduleRef.createNestApplication({ logger });
    await app.init();
    try {
      await app.get(OutboxService).enqueue({ destination: 'billing', key: 'k', payload: { card: 'PAYLOAD-MARKER' } });
      await waitFor(() => written.some((chunk) => chunk.includes('dead-lettered')), 20_000, 'the dead-letter log');
    } finally {
      await app.close();
      vi.restoreAllMocks();
    }
    return written;
  }

  it('writes one line per event in the default (text) mode, with the fields inline', async () => {
    const written = await capture(new ConsoleLogger());
    for (const event of ['outbox message failed; retrying', 'outbox message dead-lettered']) {
      const chunks = written.filter((chunk) => chunk.includes(event));
      expect(chunks, event).toHaveLength(1);
      const [line] = chunks;
      expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1, line).toBe(true);
      expect(line).toMatch(
        /\[OutboxPoller\] outbox message (failed; retrying|dead-lettered) \{ .*destination: 'billing'.*attempt: [12].*error: 'PublishFailedError \[PUBLISH_FAILED\]: upstream answered:\\n {2}line two\\n {2}line three' \}/,
      );
    }
    expect(written.join('')).not.toContain('PAYLOAD-MARKER');
  });

  it('keeps the fields as structured params of one JSON record in json mode', async () => {
    const written = await capture(new ConsoleLogger({ json: true }));
    const records = written.filter((chunk) => chunk.includes('failed; retrying'));
    expect(records).toHaveLength(1);
    expect(records[0].trimEnd()).not.toContain('\n');
    expect(JSON.parse(records[0])).toMatchObject({
      level: 'warn',
      context: 'OutboxPoller',
      message: 'outbox message failed; retrying',
      params: {
        destination: 'billing',
        attempt: 1,
        error: 'PublishFailedError [PUBLISH_FAILED]: upstream answered:\n  line two\n  line three',
      },
    });
    expect(written.join('')).not.toContain('PAYLOAD-MARKER');
  });
});
