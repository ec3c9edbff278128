import type { StatementRunner } from '../../database/statement-runner.js';
import type { QueueBoxTable, DeadRowFilter, SqlDialect } from '../../database/sql-dialect.interface.js';
import type { DeadLetterBatchResult } from '../../shared/interfaces/admin.interface.js';

/** A replay or a discard: the same chunking, another statement. */
export type DeadLetterAction = 'replay' | 'discard';

const byId = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/**
 * Replays or discards listed dead rows in chunks of `chunkSize`, in id order, each chunk one
 * statement (its own short transaction). Id order matters for a replay: a key's older row becomes
 * pending no later than its younger rows, so the claim (one head per key, oldest first) delivers
 * them in order. `onChunk` runs after each chunk that changed rows.
 */
export async function deadLettersByIds(
  runner: StatementRunner,
  dialect: SqlDialect,
  action: DeadLetterAction,
  table: QueueBoxTable,
  ids: readonly string[],
  chunkSize: number,
  onChunk: (ids: string[]) => void,
): Promise<DeadLetterBatchResult> {
  const ordered = [...new Set(ids)].sort(byId);
  const done: string[] = [];
  let chunks = 0;
  for (let start = 0; start < ordered.length; start += chunkSize) {
    const chunk = ordered.slice(start, start + chunkSize);
    const changed = await runner.run(
      action === 'replay' ? dialect.replayDead(table, chunk) : dialect.discardDead(table, chunk),
    );
    chunks += 1;
    if (changed.length > 0) onChunk(changed);
    done.push(...changed);
  }
  // In id order: UPDATE ... RETURNING gives rows in no defined order.
  return { count: done.length, chunks, ids: done.sort(byId) };
}

/**
 * Replays or discards every dead row of a filter, `chunkSize` rows per statement, walking ids
 * upwards from the start until a chunk finds none. Each chunk is its own short transaction, so
 * the claims of running pollers interleave with the replay instead of waiting behind one large
 * update. A row is taken at most once per call: the walk never goes back, and a replayed row that
 * dies again lies behind it. Ascending ids keep per-key order (see `deadLettersByIds`).
 */
export async function deadLettersByFilter(
  runner: StatementRunner,
  dialect: SqlDialect,
  action: DeadLetterAction,
  table: QueueBoxTable,
  filter: DeadRowFilter,
  chunkSize: number,
  onChunk: (ids: string[]) => void,
): Promise<DeadLetterBatchResult> {
  let afterId = '0';
  let count = 0;
  let chunks = 0;
  for (;;) {
    const page = { filter, afterId, limit: chunkSize };
    const changed = await runner.run(
      action === 'replay' ? dialect.replayDeadMatching(table, page) : dialect.discardDeadMatching(table, page),
    );
    chunks += 1;
    if (changed.length === 0) return { count, chunks };
    count += changed.length;
    onChunk(changed);
    afterId = changed.reduce((max, id) => (byId(id, max) > 0 ? id : max));
  }
}
