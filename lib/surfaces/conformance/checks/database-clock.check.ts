import { WalkCursor } from '../../../engine/walk-cursor.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import type { ConformanceContext } from '../conformance-context.js';
import { expectThat } from '../conformance-failure.js';

const DELAY_MS = 1_000;

const DESTINATION = 'conformance-clock';

/** The rows of the check's destination one outbox claim takes, completed at once (the check leaves nothing in flight). */
async function claimAndFinish(context: ConformanceContext, leaseMs: number): Promise<string[]> {
  const { rows } = await context.repository.claimOutbox([DESTINATION], new WalkCursor().request(10, leaseMs), {
    lock: false,
  });
  await context.repository.completeMany(
    rows.map((row) => ({ component: 'outbox' as const, id: row.id, token: row.token, leaseMs })),
  );
  return rows.map((row) => row.id);
}

/**
 * Due times are computed and compared by the database clock: a row enqueued with a delay is not
 * claimable before the database clock reaches it and is claimable after, and no statement of the
 * run sends the application's clock.
 */
export const databaseClockCheck: ConformanceCheckDefinition = {
  name: 'database-clock',
  title: 'due times and leases use the database clock, not the application clock',
  async run(context) {
    const before = Date.now();
    const start = await context.databaseNow();
    const skewMs = Math.round((before + Date.now()) / 2 - start.getTime());
    const [id] = await context.insertOutbox([{ destination: DESTINATION, key: null, delayMs: DELAY_MS }]);
    const inserted = await context.databaseNow();
    const early = await claimAndFinish(context, 60_000);
    const earlyAt = await context.databaseNow();
    // Only a claim that ran before the due time (by the database clock) says anything.
    if (earlyAt.getTime() < start.getTime() + DELAY_MS) {
      expectThat(
        !early.includes(id),
        `row ${id}, enqueued with a ${DELAY_MS} ms delay, was claimed at database time +${earlyAt.getTime() - start.getTime()} ms`,
      );
    }
    const due = await context.untilClockPast(new Date(inserted.getTime() + DELAY_MS), 'the delayed row to be due');
    const late = await claimAndFinish(context, 60_000);
    expectThat(
      late.includes(id),
      `row ${id} was not claimed once the database clock passed its due time (${due.toISOString()})`,
    );
    const { run, withApplicationTime } = context.statements;
    expectThat(
      withApplicationTime === 0,
      `${withApplicationTime} of ${run} statements sent a time of the application's clock`,
    );
    return `application clock − database clock ≈ ${skewMs} ms; row ${id} enqueued with a ${DELAY_MS} ms delay was not claimed at database time +${earlyAt.getTime() - start.getTime()} ms and was claimed after +${due.getTime() - start.getTime()} ms; 0 of the ${run} statements so far sent an application time`;
  },
};
