import { Injectable, Logger } from '@nestjs/common';
import { afterEach, expect, it, vi } from 'vitest';
import { PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { startQueueBoxApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

@PullWorker('tickets', { leaseMs: 20_000 })
@Injectable()
class TicketsWorker extends PullWorkerHost {
  async handle(_message: InboxMessage): Promise<void> {}
}

/** What an operator reads in Nest's default console logger: one line per loop start and stop. */
describeWithDatabase('loop start-up and shutdown logs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('say one readable line per loop when it starts and when it stops', async () => {
    const log = vi.spyOn(Logger.prototype, 'log');
    const app = await startQueueBoxApp(
      await createTestSchema(),
      {
        destinations: { sink: { type: 'custom', publisher: RecordingPublisher } },
        inbox: { relay: { routes: { orders: { destination: 'sink' } } } },
        retention: { outboxSentMs: 86_400_000 },
      },
      [RecordingPublisher, TicketsWorker],
    );
    await app.close();
    const lines = log.mock.calls.map((call) => ({
      context: (log.mock.contexts[log.mock.calls.indexOf(call)] as { context?: string }).context,
      message: call[0],
    }));
    const loops = ['OutboxPoller', 'InboxRelay', 'PullWorker:TicketsWorker', 'RetentionSweeper'];
    for (const loop of loops) {
      const own = lines.filter((line) => line.context === loop).map((line) => line.message);
      expect(own, loop).toHaveLength(2);
      for (const message of own) {
        expect(typeof message, loop).toBe('string');
        expect(message, loop).not.toContain('\n');
      }
      expect(own[0], loop).toMatch(/^started: /);
      expect(own[1], loop).toMatch(/^stopped/);
    }
    expect(lines.find((line) => line.context === 'PullWorker:TicketsWorker')?.message).toContain(
      'source tickets, lease 20000 ms',
    );
  });
});
