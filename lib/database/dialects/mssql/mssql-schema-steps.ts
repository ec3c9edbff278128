import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { INBOX_COLUMNS, OUTBOX_COLUMNS } from '../schema-columns.js';
import type { SchemaStep } from '../schema-step.interface.js';
import {
  createInboxTable,
  createOutboxTable,
  createSchema,
  downgradeFromV3,
  dropInboxTable,
  dropOutboxTable,
  upgradeToV3,
} from './schema.sql.js';

/**
 * QueueBox's schema on SQL Server. It starts at PostgreSQL's version 2 (the tables as they are
 * today, with the claim engine's filtered indexes): nothing older was ever shipped for SQL Server,
 * so there is nothing to upgrade from; version 3 (the outbox's per-destination indexes) follows.
 * The steps keep PostgreSQL's names and timestamps.
 */
export const mssqlSchemaSteps = (t: ResolvedTableNames): SchemaStep[] => [
  {
    name: 'Outbox',
    version: 1764460800000,
    up: [...createSchema(t), ...createOutboxTable(t)],
    down: dropOutboxTable(t),
    columns: { outbox: OUTBOX_COLUMNS },
  },
  {
    name: 'Inbox',
    version: 1764547200000,
    up: createInboxTable(t),
    down: dropInboxTable(t),
    columns: { inbox: INBOX_COLUMNS },
  },
  // The outbox's indexes only (the claim's reads per destination): named with the table when it is
  // missing; no column for the start-up check to look for once it is there.
  { name: 'SchemaV3', version: 1796515200000, up: upgradeToV3(t), down: downgradeFromV3(t), columns: { outbox: [] } },
];
