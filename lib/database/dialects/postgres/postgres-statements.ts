import type { DialectTexts } from '../dialect-texts.interface.js';
import type { ClaimComponent } from '../../sql-dialect.interface.js';
import * as blocked from './blocked-keys.sql.js';
import * as atRisk from './claims-at-risk.sql.js';
import * as clock from './clock.sql.js';
import * as deadCounts from './dead-counts.sql.js';
import * as deadLetters from './dead-letters.sql.js';
import * as fenced from './fenced-writes.sql.js';
import * as inbox from './inbox.sql.js';
import * as outbox from './outbox.sql.js';
import * as pendingWork from './pending-work.sql.js';
import * as pull from './pull.sql.js';
import * as retention from './retention.sql.js';
import * as rows from './row-states.sql.js';
import * as schemaLifecycle from './schema-lifecycle.sql.js';
import * as tableColumns from './table-columns.sql.js';
import { CLAIMERS } from '../../../shared/queuebox.claimers.js';
import { CLAIMED_ROW_COLUMNS } from '../schema-columns.js';

const claimColumnsOf = (kind: ClaimComponent): readonly string[] => CLAIMED_ROW_COLUMNS[CLAIMERS[kind].table.name];

/** Every PostgreSQL text (`$n` placeholders), by its statement's key: the mirrored *.sql.ts files. */
export const postgresTexts: DialectTexts = {
  ...clock,
  ...pendingWork,
  ...schemaLifecycle,
  ...tableColumns,
  ...outbox,
  ...inbox,
  ...pull,
  ...fenced,
  ...retention,
  ...deadLetters,
  ...deadCounts,
  ...blocked,
  ...rows,
  ...atRisk,
  // The hand-off returns the columns of its claim; one row has a form of its own.
  completeMany: (t, kind) => fenced.completeMany(t, kind, claimColumnsOf(kind)),
  completeOne: (t, kind) => fenced.completeOne(t, kind, claimColumnsOf(kind)),
  // The outbox inserts that also NOTIFY with the caller's commit: two more parameters, channel and sender.
  notifyingInserts: {
    insertOutbox: (t) => outbox.withCommitNotify(outbox.insertOutbox(t), 6),
    insertOutboxOne: (t) => outbox.withCommitNotify(outbox.insertOutboxOne(t), 5),
  },
};
