import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresNotifyTransport } from '../../lib/database/dialects/postgres/notify-transport.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';

/**
 * The LISTEN connection's recovery, with a stand-in for TypeORM's query runner: how many
 * connections the transport opens, not what PostgreSQL does (the integration suite terminates
 * real LISTEN backends).
 */
class FakeRunner {
  readonly client = new EventEmitter();
  isReleased = false;
  constructor(private readonly onQuery: (runner: FakeRunner, sql: string) => Promise<unknown>) {}
  async connect(): Promise<EventEmitter> {
    return this.client;
  }
  query(sql: string): Promise<unknown> {
    return this.onQuery(this, sql);
  }
  async release(): Promise<void> {
    this.isReleased = true;
  }
  get databaseConnection(): EventEmitter {
    return this.client;
  }
}

describe('PostgresNotifyTransport', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('reconnects once when the LISTEN connection fails while it is being set up', async () => {
    vi.useFakeTimers();
    const runners: FakeRunner[] = [];
    let failFirst = true;
    const dataSource = {
      createQueryRunner: () => {
        const runner = new FakeRunner(async (self, sql) => {
          if (sql.startsWith('LISTEN') && failFirst && self === runners[0]) {
            // The server ends the session during LISTEN: the client emits 'error' (TypeORM
            // releases the runner as broken), and the pending query fails too.
            failFirst = false;
            self.client.emit('error', new Error('terminating connection due to administrator command'));
            self.isReleased = true;
            throw new Error('Connection terminated unexpectedly');
          }
          return [];
        });
        runners.push(runner);
        return runner;
      },
    } as unknown as DataSource;
    const transport = new PostgresNotifyTransport(dataSource, resolveOptions({}).tables, 'replica-1', {
      statementTimeoutMs: 30_000,
    });

    await transport.listen(() => undefined);
    // Both the lost connection and the failed set-up ask for a reconnect: one must be made.
    // Past the reconnect delay (2 s), before the first health check (10 s).
    await vi.advanceTimersByTimeAsync(5_000);
    const listening = runners.filter((runner) => !runner.isReleased);
    expect(runners.length).toBe(2);
    expect(listening.length).toBe(1);
    await transport.close();
  });

  it('replaces a LISTEN connection that stops answering: the health check runs within the statement deadline and discards it', async () => {
    vi.useFakeTimers();
    const runners: FakeRunner[] = [];
    const discarded: FakeRunner[] = [];
    const dataSource = {
      createQueryRunner: () => {
        const runner = new FakeRunner(async (self, sql) => {
          // The first connection goes silent after its LISTENs: a network cut with no FIN or RST.
          if (sql.includes('pg_listening_channels') && self === runners[0]) return new Promise(() => undefined);
          if (sql.includes('pg_listening_channels'))
            return [{ channel: 'queuebox_queuebox_outbox_messages' }, { channel: 'queuebox_queuebox_inbox_messages' }];
          return [];
        });
        runners.push(runner);
        return runner;
      },
    } as unknown as DataSource;
    const discard = (runner: unknown): void => {
      discarded.push(runner as FakeRunner);
      (runner as FakeRunner).isReleased = true;
    };
    const transport = new PostgresNotifyTransport(dataSource, resolveOptions({}).tables, 'replica-1', {
      statementTimeoutMs: 3_000,
      discard,
    });

    await transport.listen(() => undefined);
    expect(runners).toHaveLength(1);
    // The check at 10 s gets no answer; at 13 s the deadline discards the connection; 2 s later a new one listens.
    await vi.advanceTimersByTimeAsync(16_000);
    expect(discarded).toEqual([runners[0]]);
    expect(runners).toHaveLength(2);
    // The new connection answers its checks: it stays.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(runners).toHaveLength(2);
    expect(runners[1].isReleased).toBe(false);
    await transport.close();
  });

  it('stops listening for good, saying so once, when a connection that still answers has lost its channels (a pooler moved it to another session)', async () => {
    vi.useFakeTimers();
    const runners: FakeRunner[] = [];
    const warnings = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const dataSource = {
      createQueryRunner: () => {
        // Every connection answers, but its LISTEN never lasts: the next transaction runs elsewhere.
        const runner = new FakeRunner(async () => []);
        runners.push(runner);
        return runner;
      },
    } as unknown as DataSource;
    const transport = new PostgresNotifyTransport(dataSource, resolveOptions({}).tables, 'replica-1', {
      statementTimeoutMs: 3_000,
    });

    await transport.listen(() => undefined);
    // On 8db1303: a reconnect and a warning every health check, forever.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runners).toHaveLength(1);
    expect(runners[0].isReleased).toBe(true);
    expect(warnings.mock.calls.map((call) => String(call[0]))).toEqual([expect.stringContaining('notify.listenUrl')]);
    await transport.close();
  });
  it('keeps listening when a health check comes while the LISTENs of a reconnect are still under way (a server recovering answers slowly)', async () => {
    vi.useFakeTimers();
    const runners: FakeRunner[] = [];
    const listened = new Map<FakeRunner, Set<string>>();
    const warnings = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const dataSource = {
      createQueryRunner: () => {
        const runner = new FakeRunner(async (self, sql) => {
          const channels = listened.get(self) ?? new Set<string>();
          listened.set(self, channels);
          const listen = /^LISTEN "([^"]+)"/.exec(sql);
          if (listen) {
            // The reconnected session's second LISTEN waits on the server for 3 s.
            if (self === runners[1] && channels.size === 1) await new Promise((resolve) => setTimeout(resolve, 3_000));
            channels.add(listen[1]);
            return [];
          }
          if (sql.includes('pg_listening_channels')) return [...channels].map((channel) => ({ channel }));
          return [];
        });
        runners.push(runner);
        return runner;
      },
    } as unknown as DataSource;
    const transport = new PostgresNotifyTransport(dataSource, resolveOptions({}).tables, 'replica-1', {
      statementTimeoutMs: 30_000,
    });

    await transport.listen(() => undefined);
    // The server restarts at 7.9 s: the session ends; the reconnect (2 s later) is still in its
    // LISTENs when the health check runs at 10 s.
    await vi.advanceTimersByTimeAsync(7_900);
    runners[0].client.emit('end');
    await vi.advanceTimersByTimeAsync(2_200);
    // Once its LISTENs answered, the session is checked (at 20 s and 30 s) and kept.
    await vi.advanceTimersByTimeAsync(25_000);
    expect(runners).toHaveLength(2);
    expect(runners[1].isReleased).toBe(false);
    expect(warnings.mock.calls.map((call) => String(call[0]))).toEqual([
      expect.stringContaining('LISTEN connection lost'),
    ]);
    await transport.close();
  });
});
