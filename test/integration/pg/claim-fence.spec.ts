import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { Claim } from '../../../lib/interfaces/claim.interface.js';
import type { ClaimRepository } from '../../../lib/claims/claim.repository.js';
import { DeadLetterRepository } from '../../../lib/claims/dead-letter.repository.js';
import type { ClaimedOutboxRow } from '../../../lib/dialects/statement-results.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { untilDatabase, untilDue, untilLeaseEnded } from '../../fixtures/db-clock.js';
import { claimOutbox, claimPull, insertRows, repositoryFor, rowState } from '../../fixtures/outbox-rows.js';


describe('claim repository on PostgreSQL: claims and the fence', () => {
  let schema: string;
  let a: DataSource;
  let b: DataSource;
  let repoA: ClaimRepository;
  let repoB: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema(inject('pgUrl'));
    a = await openDataSource(inject('pgUrl'), schema);
    b = await openDataSource(inject('pgUrl'), schema);
    repoA = repositoryFor(a, schema).repository;
    repoB = repositoryFor(b, schema).repository;
  });
  beforeEach(async () => {
    await a.query(`TRUNCATE "${schema}".queuebox_outbox_messages`);
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
  });

  const claimOf = (row: { id: string; token: string }, leaseMs: number): Claim => ({ component: 'outbox', id: String(row.id), token: row.token, leaseMs });

  it('concurrent claims from two DataSources never take the same row', async () => {
    await insertRows(a, schema, Array.from({ length: 200 }, () => null));
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
    expect(await rowState(a, schema, id)).toMatchObject({ state: 'processing', claim_token: row.token, last_error: null });
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
    expect(await rowState(a, schema, id)).toMatchObject({ state: 'processing', claim_token: row.token, last_error: null });
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
    const { dialect } = repositoryFor(a, schema);
    const ids: string[] = [];
    for (const source of ['relayed', 'pulled']) {
      const statement = dialect.insertInbox({ source, idempotencyKey: `r-${source}`, key: null, headers: '{}', payload: '1' });
      await a.query(statement.sql, [...statement.params]);
      const [claimed] = await claimPull(repoA, source, 1, 200);
      ids.push(String(claimed.id));
    }
    for (const id of ids) await untilLeaseEnded(a, schema, id, 'queuebox_inbox_messages');
    expect(await repoB.reclaimExpired('inbox', ['relayed'])).toBe(1);
    const states = await a.query(`SELECT source, state FROM "${schema}".queuebox_inbox_messages WHERE idempotency_key LIKE 'r-%' ORDER BY source`);
    expect(states).toEqual([
      { source: 'pulled', state: 'processing' },
      { source: 'relayed', state: 'pending' },
    ]);
  });

  it('a renewal extends the lease from the database clock and keeps the claim past its first lease', async () => {
    const [id] = await insertRows(a, schema, ['k']);
    const [row] = await claimOutbox(repoA, 1, 1_000);
    const leaseOf = async () => (await a.query(`SELECT lease_expires_at FROM "${schema}".queuebox_outbox_messages WHERE id = $1`, [id]))[0].lease_expires_at as Date;
    const first = await leaseOf();
    // Renewed with a lease of a minute: its end is now a minute after the renewal, by the database clock.
    expect(await repoA.renew(claimOf(row, 60_000))).toBe('ok');
    expect((await leaseOf()).getTime() - first.getTime()).toBeGreaterThan(50_000);
    // Past the first lease's end the claim still holds: nothing to reclaim, and the owner completes it.
    await untilDatabase(a, 'SELECT statement_timestamp() > $1::timestamptz AS ok', [first], 'the first lease to end');
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
    expect(await rowState(a, schema, ids[1])).toMatchObject({ state: 'processing', claim_token: claimed[0].token, attempts: 1 });
    // The key stays blocked for any other claimer: one row of it in flight, the handed-on one.
    expect(await claimOutbox(repoB, 10, 60_000)).toEqual([]);
  });

  it('a hand-off skips a next row that is not due, leaving the key to a later claim', async () => {
    const ids = await insertRows(a, schema, ['k', 'k']);
    const [head] = await claimOutbox(repoA, 10, 60_000);
    await a.query(`UPDATE "${schema}".queuebox_outbox_messages SET next_attempt_at = statement_timestamp() + interval '1 hour' WHERE id = $1`, [ids[1]]);
    expect(await repoA.completeMany([claimOf(head, 60_000)], 60_000)).toEqual({ lost: [], claimed: [] });
    expect((await rowState(a, schema, ids[1])).state).toBe('pending');
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

  it('a claim that takes a row older than a finished row of its key is flagged as an inversion', async () => {
    // Producer P inserts first but commits last: its row becomes visible after a younger one was sent.
    const producer = a.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const [older] = await insertRows(a, schema, ['k'], producer);
    const [younger] = await insertRows(b, schema, ['k']);
    const [first] = await claimOutbox(repoB, 10, 60_000);
    expect(String(first.id)).toBe(younger);
    expect(first.inverted).toBe(false);
    expect(await repoB.complete(claimOf(first, 60_000))).toBe('ok');
    await producer.commitTransaction();
    await producer.release();
    const [late] = await claimOutbox(repoB, 10, 60_000);
    expect(String(late.id)).toBe(older);
    expect(late.inverted).toBe(true);
  });

  it('a replayed dead row claimed after younger rows of its key were sent is not an inversion', async () => {
    const [older, younger] = await insertRows(a, schema, ['k', 'k']);
    const [first] = await claimOutbox(repoA, 10, 60_000);
    expect(await repoA.deadLetter(claimOf(first, 60_000), 'poison')).toBe('ok');
    const [second] = await claimOutbox(repoA, 10, 60_000);
    expect(String(second.id)).toBe(younger);
    expect(await repoA.complete(claimOf(second, 60_000))).toBe('ok');
    expect(await new DeadLetterRepository(repositoryFor(a, schema).runner, repositoryFor(a, schema).dialect).replay('outbox', [older])).toEqual([older]);
    const [replayed] = await claimOutbox(repoA, 10, 60_000);
    expect([String(replayed.id), replayed.inverted]).toEqual([older, false]);
  });

  it('a pull claim of a row older than a processed row of its aggregate is flagged as an inversion', async () => {
    const { dialect } = repositoryFor(a, schema);
    const insert = async (key: string, runner?: { query(sql: string, params?: unknown[]): Promise<unknown> }) => {
      const statement = dialect.insertInbox({ source: 'src', idempotencyKey: key, key: 'agg', headers: '{}', payload: '1' });
      const [row] = (await (runner ?? a).query(statement.sql, [...statement.params])) as { id: string }[];
      return String(row.id);
    };
    const producer = a.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const older = await insert('older', producer);
    const younger = await insert('younger');
    const [first] = await claimPull(repoB, 'src', 10, 60_000);
    expect([String(first.id), first.inverted]).toEqual([younger, false]);
    expect(await repoB.complete({ component: 'pull', id: String(first.id), token: first.token, leaseMs: 60_000 })).toBe('ok');
    await producer.commitTransaction();
    await producer.release();
    const [late] = await claimPull(repoB, 'src', 10, 60_000);
    expect([String(late.id), late.inverted]).toEqual([older, true]);
  });
});
