import type { EntityManager } from 'typeorm';
import type { StatementRunner } from '../../database/statement-runner.js';
import type { OutboxInsertRow, SqlDialect } from '../../database/sql-dialect.interface.js';
import type { EnqueuedMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { WakeUpHub } from '../../engine/wakeup/wake-up.hub.js';

/**
 * Inserts validated outbox rows in one statement (in `manager`'s transaction when given) and
 * wakes the pollers once they are visible. Returns ids in input order.
 */
export async function insertOutboxRows(
  runner: StatementRunner,
  dialect: SqlDialect,
  wakeUps: WakeUpHub,
  rows: readonly OutboxInsertRow[],
  manager?: EntityManager,
): Promise<EnqueuedMessage[]> {
  if (rows.length === 0) return [];
  // The write that opens a wake-up window carries the NOTIFY to its own commit.
  const wakeUp = wakeUps.commitWakeUp('outbox');
  const inserted = await runner.run(dialect.insertOutbox(rows, wakeUp), manager);
  wakeUps.rowsWritten('outbox', manager, wakeUp !== undefined);
  const idByMessageId = new Map(inserted.map((row) => [row.messageId, row.id]));
  return rows.map((row) => ({ id: idByMessageId.get(row.messageId)!, messageId: row.messageId }));
}
