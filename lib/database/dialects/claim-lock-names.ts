import { createHash } from 'node:crypto';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../sql-dialect.interface.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';

/** The table part of a lock name: schema-qualified, so that instances on other schemas never wait for each other. */
function lockTableName(tables: ResolvedTableNames, table: QueueBoxTable): string {
  return tables.schema ? `${tables.schema}.${tables[table]}` : tables[table];
}

/** Whose claims a lock serializes: the outbox poller's, the relay's, or the pull workers' of one source. */
export type ClaimLockTarget = { kind: 'outbox' | 'relay' } | { kind: 'pull'; source: string };

/**
 * The documented claim lock names (docs/concepts/claims-and-leases.md, "Locks"):
 * `queuebox_outbox_claim_<schema.table>`, `queuebox_inbox_claim_<schema.table>` (the relay), and
 * per source `queuebox_pull_<schema.table>:<source>`, so that pull workers of different sources
 * never wait for each other. A name longer than `maxLength` becomes `queuebox_<sha256 hex>` of
 * it: a database that would truncate it could make two names one.
 */
export function claimLockName(tables: ResolvedTableNames, target: ClaimLockTarget, maxLength = Infinity): string {
  const table = CLAIMERS[target.kind].table.name;
  const name =
    'source' in target
      ? `queuebox_pull_${lockTableName(tables, table)}:${target.source}`
      : `queuebox_${table}_claim_${lockTableName(tables, table)}`;
  return name.length <= maxLength ? name : `queuebox_${createHash('sha256').update(name, 'utf8').digest('hex')}`;
}
