import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { Claim } from '../../../lib/shared/interfaces/claim.interface.js';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import type { ClaimedOutboxRow } from '../../../lib/database/statement-results.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { untilClockPast, untilDue, untilLeaseEnded } from '../../fixtures/db-clock.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import {
  claimOutbox,
  claimPull,
  insertInboxRow,
  insertRows,
  repositoryFor,
  rowState,
} from '../../fixtures/outbox-rows.js';

/** Claims and fenced writes through the ClaimRepository, on the dialect of the test database. */
describeWithDatabase('claim repository: claims and the fence', () => {
  let schema: string;
  let a: DataSource;
  let b: DataSource;
  let repoA: ClaimRepository;
  let repoB: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await openDataSource(schema);
    b = await openDataSource(schema);
    repoA = repositoryFor(a, schema).repository;
    repoB = repositoryFor(b, schema).repository;
  });
  beforeEach(async () => {
    await testDatabase().truncate(a, schema, ['outbox']);
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
  });

  const claimOf = (row: { id: string; token: string }, leaseMs: number): Claim => ({
    component: 'outbox',
    id: String(row.id),
    token: row.token,
    leaseMs,
  });

  it('concurrent claims from two DataSources never take the same row', async () => {
    await insertRows(
      a,
      schema,
      Array.from({ length: 200 }, () => null),
    );
    const claimed: string[] = [];
    await Promise.all(
      [repoA, repoB, repoA, repoB].map(async (repository) => {
        for (;;) {
          const rows = await claimOutbox(repository, 7, 60_000);
          if (rows.length === 0) return;
          claimed.push(...rows.map((row) => String(row.id)));
        }
      }),
    );
    expect(claimed).toHaveLength(200);
    expect(new Set(claimed).size).toBe(200);
  });

  it('claims one row per key, the oldest unfinished, and every unordered row', async () => {
    const ids = await insertRows(a, schema, ['k1', 'k1', 'k2', null, 'k2', null]);
    const rows = await claimOutbox(repoA, 100, 60_000);
    expect(rows.map((row) => String(row.id)).sort()).toEqual([ids[0], ids[2], ids[3], ids[5]].sort());
    // While the heads are in flight, their keys stay blocked.
    expect(await claimOutbox(repoB, 100, 60_000)).toHaveLength(0);
  });

  it('a retried head keeps its key blocked until its backoff ends, then is claimed again first', async () => {
    const ids = await insertRows(a, schema, ['k', 'k']);
    const [head] = await claimOutbox(repoA, 10, 60_000);
    expect(await repoA.retry(claimOf(head, 60_000), 400, 'boom')).toBe('ok');
    expect(await claimOutbox(repoB, 10, 60_000)).toHaveLength(0);
    await untilDue(a, schema, ids[0]);
    const [again] = await claimOutbox(repoB, 10, 60_000);
    expect(String(again.id)).toBe(ids[0]);
    expect(again.attempts).toBe(2);
    expect(again.token).not.toBe(head.token);
  });

  it('a fenced write with a stale token changes nothing', async () => {
    const [id] = await insertRows(a, schema, ['k']);
    const [row] = await claimOutbox(repoA, 1, 60_000);
    const stale: Claim = { ...claimOf(row, 60_000), token: '00000000-0000-4000-8000-000000000000' };
    expect(await repoB.renew(stale)).toBe('lost');
    expect(await repoB.complete(stale)).toBe('lost');
    expect(await repoB.retry(stale, 0, 'x')).toBe('lost');
    expect(await repoB.deadLetter(stale, 'x')).toBe('lost');
    expect((await repoB.completeMany([stale])).lost).toEqual([stale]);
    expect(await rowState(a, schema, id)).toMatchObject({
      state: 'processing',
      claim_token: row.token,
      last_error: null,
    });
    expect(await repoA.complete(claimOf(row, 60_000))).toBe('ok');
    expect(await rowState(a, schema, id)).toMatchObject({ state: 'sent', claim_token: row.token });
  });

  it('after the lease ended by the database clock, renew, complete, retry and dead-letter change nothing', async () => {
    const [id] = await insertRows(a, schema, ['k']);
    const [row] = await claimOutbox(repoA, 1, 300);
    const claim = claimOf(row, 300);
    await untilLeaseEnded(a, schema, id);
    expect(await repoA.renew(claim)).toBe('lost');
    expect(await repoA.complete(claim)).toBe('lost');
    expect(await repoA.retry(claim, 0, 'late')).toBe('lost');
    expect(await repoA.deadLetter(claim, 'late')).toBe('lost');
    expect(await rowState(a, schema, id)).toMatchObject({
      state: 'processing',
      claim_token: row.token,
      last_error: null,
    });
  });

  it('reclaim returns expired claims to pending; the new claim gets a new token and the old owner is fenced out', async () => {
    const [id] = await insertRows(a, schema, ['k']);
    const [first] = await claimOutbox(repoA, 1, 300);
    // An unexpired claim is not reclaimed.
    expect(await repoB.reclaimExpired('outbox')).toBe(0);
    await untilLeaseEnded(a, schema, id);
    expect(await repoB.reclaimExpired('outbox')).toBe(1);
    const [second] = await claimOutbox(repoB, 1, 60_000);
    expect(String(second.id)).toBe(id);
    expect(second.token).not.toBe(first.token);
    expect(await repoA.complete(claimOf(first, 300))).toBe('lost');
    expect(await repoB.complete(claimOf(second, 60_000))).toBe('ok');
  });

  it('the relay reclaims expired claims of its own sources only; pull claims take theirs themselves', async () => {
    const ids: string[] = [];
    for (const source of ['relayed', 'pulled']) {
      await insertInboxRow(a, schema, { source, idempotencyKey: `r-${source}` });
      const [claimed] = await claimPull(repoA, source, 1, 200);
      ids.push(String(claimed.id));
    }
    for (const id of ids) await untilLeaseEnded(a, schema, id, 'inbox');
    expect(await repoB.reclaimExpired('inbox', ['relayed'])).toBe(1);
    const states = (await inboxRows(a, schema))
      .filter((row) => row.idempotency_key.startsWith('r-'))
      .map(({ source, state }) => ({ source, state }))
      .sort((p, q) => p.source.localeCompare(q.source));
    expect(states).toEqual([
      { source: 'pulled', state: 'processing' },
      { source: 'relayed', state: 'pending' },
    ]);
  });

  it('a renewal extends the lease from the database clock and keeps the claim past its first lease', async () => {
    const [id] = await insertRows(a, schema, ['k']);
    const [row] = await claimOutbox(repoA, 1, 1_000);
    const leaseOf = async () => (await testDatabase().rowInstants(a, schema, 'outbox', id)).leaseExpiresAt!;
    const first = await leaseOf();
    // Renewed with a lease of a minute: its end is now a minute after the renewal, by the database clock.
    expect(await repoA.renew(claimOf(row, 60_000))).toBe('ok');
    expect((await leaseOf()).getTime() - first.getTime()).toBeGreaterThan(50_000);
    // Past the first lease's end the claim still holds: nothing to reclaim, and the owner completes it.
    await untilClockPast(a, first, 'the first lease to end');
    expect(await repoB.reclaimExpired('outbox')).toBe(0);
    expect(await repoA.complete(claimOf(row, 60_000))).toBe('ok');
    expect((await rowState(a, schema, id)).state).toBe('sent');
  });

  it('a batched completion hands each finished key on to its next row, in the same statement', async () => {
    const ids = await insertRows(a, schema, ['k', 'k', 'k', 'solo', null, null]);
    const rows = await claimOutbox(repoA, 10, 60_000);
    expect(rows.map((row) => String(row.id)).sort()).toEqual([ids[0], ids[3], ids[4], ids[5]].sort());
    const claims = new Map(rows.map((row) => [String(row.id), claimOf(row, 60_000)]));
    // Without a hand-off lease, a completion only finishes rows.
    expect(await repoA.completeMany([claims.get(ids[4])!])).toEqual({ lost: [], claimed: [] });
    const { lost, claimed } = await repoA.completeMany<ClaimedOutboxRow>(
      [claims.get(ids[0])!, claims.get(ids[3])!, claims.get(ids[5])!],
      60_000,
    );
    expect(lost).toEqual([]);
    // Key k moves on to its second row; 'solo' and the unordered row have nothing to hand on.
    expect(claimed.map((row) => [row.id, row.key])).toEqual([[ids[1], 'k']]);
    expect(await rowState(a, schema, ids[1])).toMatchObject({
      state: 'processing',
      claim_token: claimed[0].token,
      attempts: 1,
    });
    // The key stays blocked for any other claimer: one row of it in flight, the handed-on one.
    expect(await claimOutbox(repoB, 10, 60_000)).toEqual([]);
  });

  it('a hand-off skips a next row that is not due, leaving the key to a later claim', async () => {
    const ids = await insertRows(a, schema, ['k', 'k']);
    const [head] = await claimOutbox(repoA, 10, 60_000);
    await testDatabase().postpone(a, schema, 'outbox', ids[1], 3_600_000);
    expect(await repoA.completeMany([claimOf(head, 60_000)], 60_000)).toEqual({ lost: [], claimed: [] });
    expect((await rowState(a, schema, ids[1])).state).toBe('pending');
  });

  it('a single completion hands its key on as a batch does, and never while another row of the key is in flight', async () => {
    const ids = await insertRows(a, schema, ['k', 'k', 'k']);
    const [head] = await claimOutbox(repoA, 10, 60_000);
    // A lost claim finishes nothing and hands nothing on.
    const stolen: Claim = { ...claimOf(head, 60_000), token: '00000000-0000-4000-8000-000000000001' };
    expect(await repoA.completeMany([stolen], 60_000)).toEqual({ lost: [stolen], claimed: [] });
    const first = await repoA.completeMany<ClaimedOutboxRow>([claimOf(head, 60_000)], 60_000);
    expect(first).toMatchObject({ lost: [], claimed: [{ id: ids[1], key: 'k', inverted: false }] });
    expect((await rowState(a, schema, ids[0])).state).toBe('sent');
    // Another row of the key in flight (written directly: no claimer would): the next completion hands nothing on.
    await testDatabase().insertOutboxRow(a, schema, { key: 'k', state: 'processing' });
    expect(await repoA.completeMany([claimOf(first.claimed[0], 60_000)], 60_000)).toEqual({ lost: [], claimed: [] });
    expect((await rowState(a, schema, ids[2])).state).toBe('pending');
  });

  it('a batched completion reports exactly the rows whose claims were lost', async () => {
    await insertRows(a, schema, [null, null, null]);
    const rows = await claimOutbox(repoA, 3, 60_000);
    const claims = rows.map((row) => claimOf(row, 60_000));
    const stolen: Claim = { ...claims[1], token: '00000000-0000-4000-8000-000000000001' };
    const { lost } = await repoA.completeMany([claims[0], stolen, claims[2]]);
    expect(lost).toEqual([stolen]);
    expect((await rowState(a, schema, claims[1].id)).state).toBe('processing');
  });
});
