import { Injectable } from '@nestjs/common';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { OutboxService, PullWorker, PullWorkerHost, QueueBoxAdmin, type OutboxPublisher } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { apiOnlyApp } from '../../fixtures/api-only-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const MINUTE = 60_000;

/**
 * An age read from the database clock for a row written between `before` and `after` (that clock
 * too): more than 0 (the report is a later statement than the insert) and no more than the time
 * between them, plus 2 ms for the rounding to milliseconds of the instants (JavaScript dates,
 * SQL Server's datetime2(3)).
 */
function expectAgedBetween(ageSeconds: number, before: Date, after: Date): void {
  expect(ageSeconds).toBeGreaterThan(0);
  expect(ageSeconds).toBeLessThanOrEqual((after.getTime() - before.getTime() + 2) / 1000);
}

describeWithDatabase('QueueBoxAdmin', () => {
  describe('reports (an API-only replica: no loop runs)', () => {
    const env = apiOnlyApp();
    const database = () => testDatabase();
    const { outboxRow, inboxRow } = env;
    let admin: QueueBoxAdmin;
    beforeAll(() => {
      admin = env.app.app.get(QueueBoxAdmin);
    });

    it('shows the backlog per destination and per inbox source, aged by the database clock', async () => {
      const before = await database().databaseNow(env.db);
      await database().seedOutbox(env.db, env.schema, { key: 'a', count: 3, destination: 'sink' });
      await database().seedOutbox(env.db, env.schema, { key: null, count: 2, destination: 'other' });
      await database().seedInbox(env.db, env.schema, { source: 'billing', key: 'x', count: 4 });
      await outboxRow({ destination: 'sink', state: 'dead', finishedAgoMs: 0 });

      const backlog = await admin.backlog();
      const after = await database().databaseNow(env.db);
      const byName = (entries: { name: string }[]) => [...entries].sort((a, b) => a.name.localeCompare(b.name));
      expect(byName(backlog.outbox)).toMatchObject([
        { name: 'other', pending: 2 },
        { name: 'sink', pending: 3 },
      ]);
      expect(backlog.inbox).toMatchObject([{ name: 'billing', pending: 4 }]);
      for (const entry of [...backlog.outbox, ...backlog.inbox])
        expectAgedBetween(entry.oldestAgeSeconds, before, after);
    });

    it('finds the keys whose head row is retrying or dead, and only those', async () => {
      const before = await database().databaseNow(env.db);
      // k1: the head failed and waits for its retry; two rows wait behind it.
      const k1 = await outboxRow({ destination: 'sink', key: 'k1', attempts: 2, lastError: 'HTTP 503' });
      await database().seedOutbox(env.db, env.schema, { key: 'k1', count: 2, destination: 'sink' });
      // k2: the oldest row died; the younger one went on without it.
      const k2 = await outboxRow({
        destination: 'sink',
        key: 'k2',
        state: 'dead',
        attempts: 5,
        lastError: 'HTTP 400',
        finishedAgoMs: MINUTE,
      });
      await outboxRow({ destination: 'sink', key: 'k2', state: 'sent', finishedAgoMs: 0 });
      // k3: a fresh head: nothing is blocked.
      await database().seedOutbox(env.db, env.schema, { key: 'k3', count: 2, destination: 'sink' });
      // k4: sent, then dead (the head now), then pending.
      await outboxRow({ destination: 'sink', key: 'k4', state: 'sent', finishedAgoMs: MINUTE });
      const k4 = await outboxRow({ destination: 'sink', key: 'k4', state: 'dead', finishedAgoMs: 0 });
      await outboxRow({ destination: 'sink', key: 'k4' });
      // k5: a fresh head with a dead row behind it: the head is not failing.
      await outboxRow({ destination: 'sink', key: 'k5' });
      await outboxRow({ destination: 'sink', key: 'k5', state: 'dead', finishedAgoMs: 0 });
      // The same key on another destination is another ordering scope.
      await outboxRow({ destination: 'other', key: 'k1' });
      // Unordered rows have no key to block.
      await outboxRow({ destination: 'sink', key: null, state: 'dead', finishedAgoMs: 0 });
      const inboxHead = await inboxRow({
        source: 'billing',
        idempotencyKey: 'i1',
        key: 'agg',
        state: 'dead',
        finishedAgoMs: 0,
      });
      await inboxRow({ source: 'billing', idempotencyKey: 'i2', key: 'agg' });

      const blocked = await admin.blockedKeys();
      const after = await database().databaseNow(env.db);
      expect(
        blocked.map(({ table, stream, key, id, reason, waiting }) => ({ table, stream, key, id, reason, waiting })),
      ).toEqual([
        { table: 'outbox', stream: 'sink', key: 'k1', id: k1, reason: 'retrying', waiting: 2 },
        { table: 'outbox', stream: 'sink', key: 'k2', id: k2, reason: 'dead', waiting: 0 },
        { table: 'outbox', stream: 'sink', key: 'k4', id: k4, reason: 'dead', waiting: 1 },
        { table: 'inbox', stream: 'billing', key: 'agg', id: inboxHead, reason: 'dead', waiting: 1 },
      ]);
      expect(blocked[0]).toMatchObject({ attempts: 2, lastError: 'HTTP 503' });
      expectAgedBetween(blocked[0].ageSeconds, before, after);
      expect(await admin.blockedKeys({ limit: 1 })).toHaveLength(2); // one per table
      await expect(admin.blockedKeys({ limit: 0 })).rejects.toMatchObject({ field: 'limit' });
    });

    it('lists claims whose lease ends within the window, by the database clock', async () => {
      // Seeded claims hold an hour-long lease.
      const outboxClaim = await outboxRow({ destination: 'sink', key: 'k', state: 'processing' });
      const inboxClaim = await inboxRow({ source: 'billing', idempotencyKey: 'i', state: 'processing' });
      await outboxRow({ destination: 'sink', key: 'other' });

      expect((await admin.claimsAtRisk({ withinMs: MINUTE })).expiring).toEqual([]);
      const { expiring, lost } = await admin.claimsAtRisk({ withinMs: 2 * 60 * MINUTE });
      expect(expiring.map(({ table, id }) => ({ table, id })).sort((a, b) => a.table.localeCompare(b.table))).toEqual([
        { table: 'inbox', id: inboxClaim },
        { table: 'outbox', id: outboxClaim },
      ]);
      for (const claim of expiring) {
        expect(claim.expiresInMs).toBeGreaterThan(50 * MINUTE);
        expect(claim.expiresInMs).toBeLessThanOrEqual(60 * MINUTE);
        expect(claim.leaseExpiresAt.getTime()).toBeGreaterThan(claim.claimedAt.getTime());
      }
      expect(lost).toEqual([]);
      await expect(admin.claimsAtRisk({ withinMs: -1 })).rejects.toMatchObject({ field: 'withinMs' });
    });
  });

  describe('loops of a running replica', () => {
    let schema: string;
    let app: TestApp | undefined;

    @PullWorker('audit', { pollIntervalMs: 50 })
    @Injectable()
    class AuditWorker extends PullWorkerHost {
      async handle(): Promise<void> {}
    }

    beforeAll(async () => {
      schema = await createTestSchema();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await app?.close();
      app = undefined;
    });

    it('shows every loop with its state, last tick, in-flight work and consecutive errors', async () => {
      app = await startQueueBoxApp(
        schema,
        { outbox: { pollIntervalMs: 20 }, retention: { deadMs: 60 * MINUTE, intervalMs: 100 } },
        [AuditWorker],
      );
      const admin = app.app.get(QueueBoxAdmin);
      await waitFor(
        () => admin.loops().every((loop) => loop.state === 'running' && loop.lastTickAt !== null),
        10_000,
        'every loop ticked',
      );
      expect(admin.loops().map(({ name, component, source }) => ({ name, component, source }))).toEqual([
        { name: 'outbox', component: 'outbox', source: undefined },
        { name: 'pull:audit', component: 'pull', source: 'audit' },
        { name: 'retention', component: 'retention', source: undefined },
      ]);
      expect(admin.loops()[0]).toMatchObject({
        consecutiveErrors: 0,
        lastError: null,
        inFlight: 0,
        pollIntervalMs: 20,
        lostClaims: [],
      });

      vi.spyOn(app.app.get(ClaimRepository, { strict: false }), 'claimOutbox').mockRejectedValue(
        new Error('database unreachable'),
      );
      await waitFor(() => admin.loops()[0].consecutiveErrors >= 2, 10_000, 'failed ticks counted');
      expect(admin.loops()[0].lastError).toContain('database unreachable');
      expect(admin.loops()[1].consecutiveErrors).toBe(0);
    });
  });

  describe('a claim that outlives its lease', () => {
    /** Holds every publish until `open()`: a destination that hangs. */
    @Injectable()
    class HangingPublisher implements OutboxPublisher {
      private release!: () => void;
      private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
      started = 0;

      async publish(): Promise<void> {
        this.started += 1;
        await this.gate;
      }

      open(): void {
        this.release();
      }
    }

    const apps: TestApp[] = [];
    afterEach(async () => {
      vi.restoreAllMocks();
      await Promise.all(apps.splice(0).map((app) => app.close()));
    });

    it('is shown at risk while its lease runs out, and as lost once another replica took it over', async () => {
      const schema = await createTestSchema();
      // A lease of 3 s, renewed every second: 2 s of margin for the new owner's renewal on a loaded machine.
      const outbox = { claimTimeoutMs: 3_000, pollIntervalMs: 50 };
      const oldOwner = await startQueueBoxApp(
        schema,
        {
          destinations: { sink: { type: 'custom', publisher: HangingPublisher } },
          outbox: { ...outbox, concurrency: 1 },
        },
        [HangingPublisher],
      );
      apps.push(oldOwner);
      // A stalled process: its renewals never reach the database.
      vi.spyOn(oldOwner.app.get(ClaimRepository, { strict: false }), 'renewMany').mockResolvedValue([]);
      const admin = oldOwner.app.get(QueueBoxAdmin);
      const { id } = await oldOwner.app.get(OutboxService).enqueue({ destination: 'sink', key: 'k', payload: 1 });
      await waitFor(() => oldOwner.app.get(HangingPublisher).started === 1, 10_000, 'the publish started');

      const atRisk = await admin.claimsAtRisk({ withinMs: 5_000 });
      expect(atRisk.expiring).toMatchObject([{ table: 'outbox', id, stream: 'sink', key: 'k', attempts: 1 }]);
      expect(atRisk.expiring[0].expiresInMs).toBeLessThanOrEqual(3_000);

      const newOwner = await startQueueBoxApp(
        schema,
        { destinations: { sink: { type: 'custom', publisher: RecordingPublisher } }, outbox },
        [RecordingPublisher],
      );
      apps.push(newOwner);
      await waitFor(
        async () => (await testDatabase().rowState(newOwner.dataSource, schema, id)).state === 'sent',
        20_000,
        'sent by the new owner',
      );
      oldOwner.app.get(HangingPublisher).open();

      await waitFor(async () => (await admin.claimsAtRisk()).lost.length === 1, 10_000, 'the loss recorded');
      const { lost } = await admin.claimsAtRisk();
      expect(lost).toMatchObject([{ loop: 'outbox', id }]);
      expect(lost[0].at).toBeInstanceOf(Date);
      expect(admin.loops()[0].lostClaims).toMatchObject([{ id }]);
    });
  });
});
