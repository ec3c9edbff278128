import { WalkCursor } from '../../../engine/walk-cursor.js';
import type { ClaimedOutboxRow } from '../../../database/statement-results.js';
import type { Claim } from '../../../shared/interfaces/claim.interface.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import type { ConformanceContext } from '../conformance-context.js';
import { ConformanceFailure, expectThat } from '../conformance-failure.js';
import { settleAll } from '../../../engine/settle-all.js';

const LEASE_MS = 60_000;
const BATCH = 4;
/** Far more rounds than the rows need: a run that does not finish is a failure, not a hang. */
const MAX_ROUNDS = 500;

/** What a run of concurrent claimers saw. */
interface ClaimRun {
  rounds: number;
  claimed: number;
  /** Per key, the ids in the order they were inserted and in the order they were claimed. */
  inserted: Map<string, string[]>;
  claimOrder: Map<string, string[]>;
  violations: string[];
  /** The later rows of the held key claimed while its first row was held. */
  claimedWhileHeld: string[];
}

const claimOf = (row: ClaimedOutboxRow): Claim => ({
  component: 'outbox',
  id: row.id,
  token: row.token,
  leaseMs: LEASE_MS,
});

/**
 * Inserts `perKey` rows of each key (interleaved: the keys' rows alternate in id order), then
 * runs rounds in which `connections` claimers claim at once, each on its own connection, and
 * the rows claimed are completed before the next round. With `hold`, the first row of the first
 * key stays claimed until no other row is left: its younger rows must not be claimed meanwhile.
 */
async function runClaimers(
  context: ConformanceContext,
  destination: string,
  keys: string[],
  perKey: number,
  hold: boolean,
): Promise<ClaimRun> {
  const rows = Array.from({ length: perKey }, () => keys.map((key) => ({ destination, key }))).flat();
  const ids = await context.insertOutbox(rows);
  const inserted = new Map(keys.map((key) => [key, [] as string[]]));
  rows.forEach((row, i) => inserted.get(row.key)!.push(ids[i]));
  const run: ClaimRun = {
    rounds: 0,
    claimed: 0,
    inserted,
    claimOrder: new Map(keys.map((key) => [key, []])),
    violations: [],
    claimedWhileHeld: [],
  };
  const cursors = Array.from({ length: context.connections }, () => new WalkCursor());
  const seen = new Set<string>();
  let held: ClaimedOutboxRow | undefined;
  while (run.claimed < ids.length) {
    if (++run.rounds > MAX_ROUNDS)
      throw new ConformanceFailure(`after ${MAX_ROUNDS} rounds only ${run.claimed} of ${ids.length} rows were claimed`);
    const results = await settleAll(
      cursors.map(async (cursor) => {
        const request = cursor.request(BATCH, LEASE_MS);
        const result = await context.repository.claimOutbox([destination], request, { lock: false });
        cursor.advance(request, result.progress);
        return result.rows;
      }),
    );
    const inFlight = new Map<string, string>(held ? [[held.key!, held.id]] : []);
    const finish: ClaimedOutboxRow[] = [];
    for (const row of results.flat()) {
      const key = row.key ?? '';
      if (seen.has(row.id)) run.violations.push(`row ${row.id} was claimed twice`);
      if (inFlight.has(key))
        run.violations.push(`key ${key}: row ${row.id} claimed while row ${inFlight.get(key)} was in flight`);
      if (held && key === held.key) run.claimedWhileHeld.push(row.id);
      seen.add(row.id);
      inFlight.set(key, row.id);
      run.claimed += 1;
      run.claimOrder.get(key)?.push(row.id);
      if (hold && !held && key === keys[0]) held = row;
      else finish.push(row);
    }
    // The held row is finished once nothing else can be claimed: its key's younger rows are next.
    if (held && results.every((claimed) => claimed.length === 0)) {
      finish.push(held);
      held = undefined;
      hold = false;
    }
    const { lost } = await context.repository.completeMany(finish.map(claimOf));
    if (lost.length > 0) run.violations.push(`${lost.length} claims were lost within their ${LEASE_MS} ms lease`);
  }
  return run;
}

/** Concurrent claimers on several connections never have two rows of one key in flight. */
export const oneInFlightPerKeyCheck: ConformanceCheckDefinition = {
  name: 'one-in-flight-per-key',
  title: 'one row per key in flight across concurrent claimers on several connections',
  async run(context) {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const run = await runClaimers(context, 'conformance-keys', keys, 5, true);
    expectThat(run.violations.length === 0, run.violations.slice(0, 5).join('; '));
    expectThat(
      run.claimedWhileHeld.length === 0,
      `while the first row of k0 was held, its younger rows ${run.claimedWhileHeld.join(', ')} were claimed`,
    );
    return `${run.rounds} rounds of ${context.connections} claimers claiming at once on ${context.connections} connections: ${run.claimed} rows of ${keys.length} keys claimed, never two rows of one key in flight, no row claimed twice; while the first row of k0 was held, none of its 4 younger rows was claimed`;
  },
};

/** Every key's rows are claimed in the order they were inserted. */
export const fifoPerKeyCheck: ConformanceCheckDefinition = {
  name: 'fifo-per-key',
  title: 'rows of one key are claimed in insertion order',
  async run(context) {
    const keys = Array.from({ length: 8 }, (_, i) => `fifo-${i}`);
    const run = await runClaimers(context, 'conformance-fifo', keys, 6, false);
    expectThat(run.violations.length === 0, run.violations.slice(0, 5).join('; '));
    const outOfOrder = keys.filter((key) => run.claimOrder.get(key)!.join() !== run.inserted.get(key)!.join());
    expectThat(
      outOfOrder.length === 0,
      outOfOrder
        .map(
          (key) =>
            `key ${key}: inserted ${run.inserted.get(key)!.join(',')}, claimed ${run.claimOrder.get(key)!.join(',')}`,
        )
        .slice(0, 3)
        .join('; '),
    );
    return `${keys.length} keys × 6 rows, inserted interleaved, claimed by ${context.connections} concurrent claimers in ${run.rounds} rounds: every key's rows in insertion order`;
  },
};
