import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import type { StatementRunner } from '../../../lib/database/statement-runner.js';
import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import type { DeadRowPage, SqlDialect } from '../../../lib/database/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimedOutboxRow } from '../../../lib/database/statement-results.js';
import { OutboxService } from '../../../lib/index.js';
import type { Claim } from '../../../lib/shared/interfaces/claim.interface.js';
import { uuidv7 } from '../../../lib/features/outbox/message-id.js';
import { createTestSchema, describeWithDatabase, openDataSource, sqlServerDatabase } from '../../fixtures/database.js';
import { untilLeaseEnded } from '../../fixtures/db-clock.js';
import { HttpReceiver } from '../../fixtures/http-receiver.js';
import { insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp } from '../../fixtures/queuebox-app.js';

/** A lower-case GUID: tedious reads `uniqueidentifier` in upper case unless the statement lower-cases it. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A bigint id as a decimal string (tedious reads `bigint` as a string). */
const ID = /^[1-9][0-9]*$/;

/**
 * docs/guides/sql-server.md, "Waits for a live SQL Server" (the statements run): every statement of
 * the dialect, run on a live server, returns what the typed results promise (statement-results.ts):
 * column names, ids as strings, lower-case GUIDs, `bit` as booleans, `datetimeoffset` instants,
 * JSON headers as objects, and an empty OUTPUT result set (not an error) on a lost fence.
 */
describeWithDatabase('SQL Server: every statement returns the decoded shapes', () => {
  let schema: string;
  let db: DataSource;
  let repository: ClaimRepository;
  let dialect: SqlDialect;
  let runner: StatementRunner;

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema, 4);
    ({ repository, dialect, runner } = repositoryFor(db, schema));
  });
  beforeEach(async () => {
    await sqlServerDatabase().truncate(db, schema, ['outbox', 'inbox']);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const claimOf = (component: Claim['component'], row: { id: string; token: string }, leaseMs = 60_000): Claim => ({
    component,
    id: row.id,
    token: row.token,
    leaseMs,
  });
  const stale = (claim: Claim): Claim => ({ ...claim, token: '00000000-0000-4000-8000-000000000000' });

  function expectOutboxRow(row: ClaimedOutboxRow): void {
    expect(row.id).toMatch(ID);
    expect(row.messageId).toMatch(GUID);
    expect(row.token).toMatch(GUID);
    expect(typeof row.attempts).toBe('number');
    expect(typeof row.inverted).toBe('boolean');
    expect(typeof row.payload).toBe('string');
    expect(typeof row.headers).toBe('object');
  }

  function expectInboxRow(row: ClaimedInboxRow): void {
    expect(row.id).toMatch(ID);
    expect(row.token).toMatch(GUID);
    expect(typeof row.attempts).toBe('number');
    expect(typeof row.inverted).toBe('boolean');
    expect(row.receivedAt).toBeInstanceOf(Date);
    expect(typeof row.headers).toBe('object');
  }

  it('insertOutbox and claimOutbox: string ids, the enqueued message ids in lower case, booleans, headers as objects', async () => {
    const messageIds = [uuidv7(), uuidv7()];
    const inserted = await runner.run(
      dialect.insertOutbox([
        {
          messageId: messageIds[0],
          destination: 'd',
          key: 'k',
          headers: JSON.stringify({ 'x-a': 'b' }),
          payload: '{"n":1}',
          delayMs: 0,
        },
        { messageId: messageIds[1], destination: 'd', key: null, headers: '{}', payload: '{"n":2}', delayMs: 0 },
      ]),
    );
    expect(inserted.map((row) => row.messageId).sort()).toEqual([...messageIds].sort());
    for (const row of inserted) expect(row.id).toMatch(ID);

    const { rows, progress } = await repository.claimOutbox(['d'], new WalkCursor().request(10, 60_000), {
      lock: true,
    });
    expect(typeof progress.windowRows).toBe('number');
    expect(typeof progress.walked).toBe('number');
    expect(rows).toHaveLength(2);
    for (const row of rows) expectOutboxRow(row);
    const byMessageId = new Map(rows.map((row) => [row.messageId, row]));
    expect(byMessageId.get(messageIds[0])).toMatchObject({
      destination: 'd',
      key: 'k',
      headers: { 'x-a': 'b' },
      payload: '{"n":1}',
      attempts: 1,
      inverted: false,
    });
    expect(byMessageId.get(messageIds[1])).toMatchObject({ key: null, headers: {}, attempts: 1, inverted: false });
    const ids = new Map(inserted.map((row) => [row.messageId, row.id]));
    for (const row of rows) expect(row.id).toBe(ids.get(row.messageId));
  });

  it('fenced writes: ok with the claim, lost (an empty OUTPUT, not an error) with a stale token', async () => {
    await insertRows(db, schema, ['k', 'k', null]);
    const rows = await repository
      .claimOutbox(['d'], new WalkCursor().request(10, 60_000), { lock: true })
      .then((result) => result.rows);
    const [head, unordered] = [rows.find((row) => row.key === 'k')!, rows.find((row) => row.key === null)!];
    const claim = claimOf('outbox', head);

    expect(await repository.renew(stale(claim))).toBe('lost');
    expect(await repository.complete(stale(claim))).toBe('lost');
    expect(await repository.retry(stale(claim), 0, 'x')).toBe('lost');
    expect(await repository.deadLetter(stale(claim), 'x')).toBe('lost');
    expect(await runner.run(dialect.renew('outbox', stale(claim), 60_000))).toEqual([]);
    expect(await repository.renew(claim)).toBe('ok');
    expect(await runner.run(dialect.renew('outbox', claim, 60_000))).toEqual([claim.id]);

    const renewals = await runner.run(
      dialect.renewMany('outbox', [claim, stale(claimOf('outbox', unordered))], 60_000),
    );
    for (const renewal of renewals) {
      expect(renewal.id).toMatch(ID);
      expect(typeof renewal.renewed).toBe('boolean');
    }
    expect(renewals.find((renewal) => renewal.id === claim.id)).toEqual({ id: claim.id, renewed: true });
    expect(renewals.find((renewal) => renewal.id === unordered.id)?.renewed ?? false).toBe(false);

    // The hand-off claims the key's next row in the same statement.
    const completion = await runner.run(
      dialect.completeMany('outbox', [claim, stale(claimOf('outbox', unordered))], 60_000),
    );
    expect(completion).toContainEqual({ outcome: 'done', id: claim.id });
    const handedOn = completion.flatMap((row) => (row.outcome === 'claimed' ? [row.row] : []));
    expect(handedOn).toHaveLength(1);
    expectOutboxRow(handedOn[0]);
    expect(handedOn[0]).toMatchObject({ key: 'k', attempts: 1, inverted: false });
    expect(completion.some((row) => row.outcome === 'done' && row.id === unordered.id)).toBe(false);
  });

  it('insertInbox, findInbox, relay and pull claims: a duplicate is undefined, received_at an instant', async () => {
    const insert = (source: string, idempotencyKey: string, key: string | null) =>
      runner.run(
        dialect.insertInbox({
          source,
          idempotencyKey,
          key,
          headers: JSON.stringify({ traceparent: 't' }),
          payload: '{"n":1}',
        }),
      );
    const pulled = await insert('pulled', 'p-1', 'agg');
    const relayed = await insert('relayed', 'r-1', null);
    if (pulled === undefined || relayed === undefined) throw new Error('a first receive must insert');
    expect(pulled).toMatch(ID);
    expect(relayed).toMatch(ID);
    expect(await insert('pulled', 'p-1', 'agg')).toBeUndefined();
    expect(await runner.run(dialect.findInbox('pulled', 'p-1'))).toBe(pulled);
    expect(await runner.run(dialect.findInbox('pulled', 'nothing'))).toBeUndefined();

    const now = await sqlServerDatabase().databaseNow(db);
    const [pull] = (
      await repository.claimPull('pulled', new WalkCursor(['pulled']).request(10, 60_000), { lock: true })
    ).rows;
    expectInboxRow(pull);
    expect(pull).toMatchObject({
      id: pulled,
      source: 'pulled',
      idempotencyKey: 'p-1',
      key: 'agg',
      headers: { traceparent: 't' },
      payload: '{"n":1}',
      attempts: 1,
      inverted: false,
    });
    // An instant, not a local time read as UTC: within a minute of the database clock.
    expect(Math.abs(pull.receivedAt.getTime() - now.getTime())).toBeLessThan(60_000);

    const [relay] = (await repository.claimInbox(['relayed'], new WalkCursor(['relayed']).request(10, 60_000))).rows;
    expectInboxRow(relay);
    expect(relay).toMatchObject({ id: relayed, source: 'relayed', key: null, attempts: 1, inverted: false });

    expect(await repository.complete(claimOf('pull', pull))).toBe('ok');
    expect(await repository.complete(stale(claimOf('relay', relay)))).toBe('lost');
    expect(await repository.deadLetter(claimOf('relay', relay), 'poison')).toBe('ok');
    const [dead] = await runner.run(dialect.listDeadInbox(firstPage(10)));
    expect(dead).toMatchObject({
      id: relayed,
      source: 'relayed',
      idempotencyKey: 'r-1',
      key: null,
      attempts: 1,
      lastError: 'poison',
    });
    expect(dead.finishedAt).toBeInstanceOf(Date);
    expect(await runner.run(dialect.replayDead('inbox', [relayed, '999999']))).toEqual([relayed]);
  });

  it('backlog gauges, dead letters, replay, reclaim and retention return their typed rows', async () => {
    const [deadId, expiringId] = await insertRows(db, schema, [null, null]);
    const rows = (await repository.claimOutbox(['d'], new WalkCursor().request(10, 200), { lock: true })).rows;
    expect(
      await repository.deadLetter(
        claimOf(
          'outbox',
          rows.find((row) => row.id === deadId)!,
        ),
        'poison',
      ),
    ).toBe('ok');

    const [dead] = await runner.run(dialect.listDeadOutbox(firstPage(10)));
    expect(dead).toMatchObject({ id: deadId, destination: 'd', key: null, attempts: 1, lastError: 'poison' });
    expect(dead.messageId).toMatch(GUID);
    expect(dead.finishedAt).toBeInstanceOf(Date);
    expect(await runner.run(dialect.replayDead('outbox', [deadId, '999999']))).toEqual([deadId]);

    await untilLeaseEnded(db, schema, expiringId);
    expect(await runner.run(dialect.reclaimExpired('outbox', 100))).toEqual([expiringId]);

    const [backlog] = await runner.run(dialect.outboxBacklog());
    expect(backlog).toEqual({ label: 'd', pending: 2, oldestAgeSeconds: expect.any(Number) });
    await sqlServerDatabase().insertInboxRow(db, schema, { source: 's', idempotencyKey: 'b-1' });
    expect(await runner.run(dialect.inboxBacklog())).toEqual([
      { label: 's', pending: 1, oldestAgeSeconds: expect.any(Number) },
    ]);

    const old = await sqlServerDatabase().insertOutboxRow(db, schema, { state: 'sent', finishedAgoMs: 3_600_000 });
    expect(await runner.run(dialect.purgeFinished('outbox', 'done', 60_000, 10))).toEqual([old]);
  });

  it('keeps the message id of the enqueue, in lower case, in X-Message-Id', async () => {
    const receiver = new HttpReceiver();
    const url = await receiver.start();
    const app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url } },
      outbox: { pollIntervalMs: 50 },
    });
    try {
      const { id, messageId } = await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
      expect(id).toMatch(ID);
      expect(messageId).toMatch(GUID);
      await receiver.waitFor(() => receiver.requests.length === 1, 10_000);
      expect(receiver.requests[0].headers['x-message-id']).toBe(messageId);
    } finally {
      await app.close();
      await receiver.stop();
    }
  });
});

/** The first page of every dead row (no filter). */
function firstPage(limit: number): DeadRowPage {
  return { afterId: '0', limit, filter: { stream: null, errorContains: null, deadSince: null, deadBefore: null } };
}
