import type { DialectTexts } from '../dialect-texts.interface.js';
import * as blocked from './blocked-keys.sql.js';
import { dueProbe } from './claim.sql.js';
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

/** Every SQL Server text (`@n` placeholders), by its statement's key: the mirrored *.sql.ts files. */
export const mssqlTexts: DialectTexts = {
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
  // A claim always takes its lock here, and no wake-up says when to look: an idle poll probes first.
  dueProbe,
};
