import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement } from './claim.sql.js';
import { DB_NOW, READ_COMMITTED, SKIP_HINTS, qualified } from './mssql-names.js';

/**
 * @0 source, @1 idempotency key, @2 key or NULL (nvarchar(200)), @3 headers (JSON text), @4
 * payload. Stores a received message once: the ON CONFLICT DO NOTHING of PostgreSQL as one
 * `INSERT … SELECT … WHERE NOT EXISTS` whose probe takes an update lock and a key-range lock
 * (UPDLOCK, HOLDLOCK) on the unique index: concurrent receives of one key serialize there and
 * exactly one inserts, also inside a caller's longer transaction. (The range lock can also delay a
 * receive of a neighbouring key until that caller commits.) Output: `id`, or no row for a
 * duplicate.
 */
export const insertInbox = (t: ResolvedTableNames): string => /* sql */ `SET NOCOUNT ON;
DECLARE @inserted TABLE (id bigint NOT NULL);
INSERT INTO ${qualified(t, 'inbox')} (source, idempotency_key, ordering_key, headers, payload)
OUTPUT inserted.id INTO @inserted (id)
SELECT @0, @1, @2, @3, @4
WHERE NOT EXISTS (SELECT 1 FROM ${qualified(t, 'inbox')} AS e WITH (UPDLOCK, HOLDLOCK)
                  WHERE e.source = @0 AND e.idempotency_key = @1);
SELECT i.id FROM @inserted AS i;`;

/** @0 source, @1 idempotency key. The row a duplicate receive refers to. Output: `id`, `state`. */
export const findInbox = (t: ResolvedTableNames): string =>
  /* sql */ `SELECT f.id, f.state FROM ${qualified(t, 'inbox')} AS f WHERE f.source = @0 AND f.idempotency_key = @1;`;

/**
 * The relay claim (claim.sql.ts) over the routed sources (@6), in the claim transaction after
 * `claimLock` of the inbox, which serializes the relay's claims. At most one row per (source,
 * key), the oldest unfinished; NULL keys are unordered. Parameters and output as
 * `claimStatement`.
 */
export const claimInbox = (t: ResolvedTableNames): string => claimStatement(t, 'relay');

/**
 * No parameters. Backlog and oldest pending age (seconds, database clock) per source, for the
 * gauges: never waits. Output: `label`, `pending` (int), `oldest_age_seconds` (float).
 */
export const inboxBacklog = (t: ResolvedTableNames): string => /* sql */ `${READ_COMMITTED}
SELECT x.source AS label, COUNT(*) AS pending,
       CAST(DATEDIFF_BIG(millisecond, MIN(x.received_at), ${DB_NOW}) AS float) / 1000 AS oldest_age_seconds
FROM ${qualified(t, 'inbox')} AS x ${SKIP_HINTS}
WHERE x.state = 'pending'
GROUP BY x.source;`;
