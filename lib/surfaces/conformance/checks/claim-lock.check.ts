import { WalkCursor } from '../../../engine/walk-cursor.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import { ConformanceFailure, expectThat } from '../conformance-failure.js';

const LEASE_MS = 60_000;
const DESTINATION = 'conformance-lock';

/**
 * While one transaction holds the outbox claim lock, a claim that takes the lock claims nothing
 * (it waits for the lock, up to the dialect's bound, and gives way as contended); once the lock
 * is released, the same claim takes the row.
 */
export const claimLockCheck: ConformanceCheckDefinition = {
  name: 'claim-lock',
  title: 'the claim lock serializes claimers',
  async run(context) {
    const [id] = await context.insertOutbox([{ destination: DESTINATION, key: 'lock' }]);
    const request = new WalkCursor().request(1, LEASE_MS);
    const lock = context.dialect.claimOutbox([DESTINATION], request, { lock: true }).lock;
    expectThat(lock !== undefined, 'the dialect took no claim lock for a claim that asked for one');
    let release = (): void => undefined;
    let holding = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = new Promise<void>((resolve) => (holding = resolve));
    // The holder: QueueBox's own lock statements, in a transaction kept open until released.
    const holder = context.runner.transaction('READ COMMITTED', async (scope) => {
      for (const statement of lock.setup) await scope.run(statement);
      if (!(await scope.run(lock.acquire)))
        throw new ConformanceFailure(
          'the holder was not granted the claim lock on a database where no one else held it',
        );
      holding();
      await released;
    });
    try {
      await Promise.race([held, holder]);
      const started = Date.now();
      const contended = await context.repository.claimOutbox([DESTINATION], request, { lock: true });
      const waitedMs = Date.now() - started;
      expectThat(
        contended.rows.length === 0,
        `while another transaction held the claim lock, a claim with the lock took ${contended.rows.length} row(s)`,
      );
      expectThat(
        contended.skipped === 'contended',
        `while the lock was held, the claim reported ${contended.skipped ?? 'no reason'} instead of giving way as contended`,
      );
      release();
      await holder;
      const { rows } = await context.repository.claimOutbox([DESTINATION], new WalkCursor().request(1, LEASE_MS), {
        lock: true,
      });
      expectThat(
        rows.some((row) => row.id === id),
        `once the lock was released, the claim did not take row ${id}`,
      );
      await context.repository.completeMany(
        rows.map((row) => ({ component: 'outbox' as const, id: row.id, token: row.token, leaseMs: LEASE_MS })),
      );
      return `while another transaction held the outbox claim lock, a claim with the lock waited ${waitedMs} ms and claimed nothing (contended); once the lock was released the same claim took row ${id}`;
    } finally {
      release();
      await holder.catch(() => undefined);
    }
  },
};
