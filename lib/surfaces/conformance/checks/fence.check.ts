import { WalkCursor } from '../../../engine/walk-cursor.js';
import type { ClaimedInboxRow } from '../../../database/statement-results.js';
import type { Claim } from '../../../shared/interfaces/claim.interface.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import type { ConformanceContext } from '../conformance-context.js';
import { expectThat } from '../conformance-failure.js';

/** A lease short enough to wait out, long enough for the claim's own round trip. */
const SHORT_LEASE_MS = 300;
const LONG_LEASE_MS = 60_000;

/** One pending inbox row of `source` (a source of the check's own), by QueueBox's insert. */
async function insertRow(context: ConformanceContext, source: string): Promise<string> {
  const id = await context.runner.run(
    context.dialect.insertInbox({ source, idempotencyKey: 'row-1', key: null, headers: '{}', payload: '{}' }),
  );
  expectThat(id !== undefined, `the insert of a new inbox row of ${source} reported a duplicate`);
  return id;
}

/** A pull claim of `source`, as a pull worker makes it: pending rows, and rows whose lease ended. */
async function claimPull(context: ConformanceContext, source: string, leaseMs: number): Promise<ClaimedInboxRow[]> {
  return (await context.repository.claimPull(source, new WalkCursor([source]).request(1, leaseMs), { lock: false }))
    .rows;
}

const claimOf = (row: ClaimedInboxRow, leaseMs: number): Claim => ({
  component: 'pull',
  id: row.id,
  token: row.token,
  leaseMs,
});
const short = (token: string): string => `${token.slice(0, 8)}…`;

/**
 * A row whose lease ended is taken over by a second claim with a new token; every fenced write
 * with the first token is refused, the new token's is accepted.
 */
export const fenceStaleTokenCheck: ConformanceCheckDefinition = {
  name: 'fence-stale-token',
  title: 'the fence refuses a stale claim token',
  async run(context) {
    const source = 'conformance-stale';
    const id = await insertRow(context, source);
    const [first] = await claimPull(context, source, SHORT_LEASE_MS);
    expectThat(first?.id === id, `the first claim did not take row ${id}`);
    const claimedBy = await context.databaseNow();
    await context.untilClockPast(new Date(claimedBy.getTime() + SHORT_LEASE_MS), 'the first lease to end');
    const [second] = await claimPull(context, source, LONG_LEASE_MS);
    expectThat(second?.id === id, `after its lease ended, a second claim did not take row ${id} over`);
    expectThat(second.token !== first.token, `the second claim reused the token ${short(first.token)}`);
    const stale = claimOf(first, LONG_LEASE_MS);
    const refused = {
      complete: await context.repository.complete(stale),
      retry: await context.repository.retry(stale, 0, 'conformance: stale write'),
      renew: await context.repository.renew(stale),
      deadLetter: await context.repository.deadLetter(stale, 'conformance: stale write'),
    };
    const accepted = Object.entries(refused).filter(([, result]) => result !== 'lost');
    expectThat(
      accepted.length === 0,
      `with the stale token ${short(first.token)}, ${accepted.map(([write]) => write).join(', ')} changed the row`,
    );
    const current = await context.repository.complete(claimOf(second, LONG_LEASE_MS));
    expectThat(current === 'ok', `complete with the current token ${short(second.token)} was refused`);
    return `row ${id} claimed with token ${short(first.token)} (lease ${SHORT_LEASE_MS} ms), taken over after the lease by a second claim with token ${short(second.token)} (attempt ${second.attempts}); with the stale token complete, retry, renew and dead-letter were all refused; complete with the current token succeeded`;
  },
};

/**
 * With no other claimer in the way, a claim whose lease ended by the database clock cannot
 * renew or finish its row, while a claim within its lease can.
 */
export const fenceExpiredLeaseCheck: ConformanceCheckDefinition = {
  name: 'fence-expired-lease',
  title: 'the fence refuses a claim whose lease has ended',
  async run(context) {
    const expiring = await insertRow(context, 'conformance-expired');
    const live = await insertRow(context, 'conformance-live');
    const [row] = await claimPull(context, 'conformance-expired', SHORT_LEASE_MS);
    expectThat(row?.id === expiring, `the claim did not take row ${expiring}`);
    const after = await context.databaseNow();
    const [liveRow] = await claimPull(context, 'conformance-live', LONG_LEASE_MS);
    expectThat(liveRow?.id === live, `the claim did not take row ${live}`);
    const past = await context.untilClockPast(new Date(after.getTime() + SHORT_LEASE_MS), 'the lease to end');
    const renew = await context.repository.renew(claimOf(row, SHORT_LEASE_MS));
    const complete = await context.repository.complete(claimOf(row, SHORT_LEASE_MS));
    expectThat(
      renew === 'lost' && complete === 'lost',
      `at database time ${past.toISOString()}, past the ${SHORT_LEASE_MS} ms lease, renew was ${renew === 'ok' ? 'accepted' : 'refused'} and complete was ${complete === 'ok' ? 'accepted' : 'refused'} (both must be refused)`,
    );
    const liveRenew = await context.repository.renew(claimOf(liveRow, LONG_LEASE_MS));
    const liveComplete = await context.repository.complete(claimOf(liveRow, LONG_LEASE_MS));
    expectThat(
      liveRenew === 'ok' && liveComplete === 'ok',
      `a claim within its lease was refused (renew ${liveRenew}, complete ${liveComplete})`,
    );
    return `row ${expiring}, claimed with a ${SHORT_LEASE_MS} ms lease by ${after.toISOString()}: at database time ${past.toISOString()} renew and complete with its own token were refused (no other claimer took it); a row within its ${LONG_LEASE_MS} ms lease renewed and completed`;
  },
};
