import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement } from './claim.sql.js';
import { DB_NOW, READ_COMMITTED, SKIP_HINTS, guidOut, qualified } from './mssql-names.js';

/**
 * @0 message id (uniqueidentifier), @1 destination, @2 key or NULL (nvarchar(200)), @3 headers
 * (JSON text), @4 payload (nvarchar(max)). The form of most enqueues: one message, due at once
 * (`next_attempt_at` takes its default, the database clock). In the caller's transaction; no lock
 * beyond the inserted row. Output: `id`, `message_id`.
 *
 * NOTE: plain OUTPUT (no INTO) fails with error 334 on a table with an enabled trigger: QueueBox
 * tables take no triggers (CDC and temporal tables are fine).
 */
export const insertOutboxOne = (
  t: ResolvedTableNames,
): string => /* sql */ `INSERT INTO ${qualified(t, 'outbox')} (message_id, destination, ordering_key, headers, payload)
OUTPUT inserted.id, ${guidOut('inserted.message_id')} AS message_id
VALUES (@0, @1, @2, @3, @4);`;

/**
 * @0 … @5 JSON arrays of one length: message ids, destinations, keys (or null), headers texts,
 * payloads, delays (ms). Many rows, or a delay. Ids are assigned in array order: only
 * `INSERT … SELECT … ORDER BY` guarantees the order of identity values, and per-key FIFO inside
 * one enqueue depends on it. `OUTPUT … INTO` a table variable, then one SELECT: sqlfluff 1.4.5
 * rejects a plain OUTPUT before SELECT, and the INTO form is trigger-safe. Output: `id`,
 * `message_id`.
 */
export const insertOutbox = (t: ResolvedTableNames): string => /* sql */ `SET NOCOUNT ON;
DECLARE @inserted TABLE (id bigint NOT NULL, message_id uniqueidentifier NOT NULL);
INSERT INTO ${qualified(t, 'outbox')} (message_id, destination, ordering_key, headers, payload, next_attempt_at)
OUTPUT inserted.id, inserted.message_id INTO @inserted (id, message_id)
SELECT CAST(m.value AS uniqueidentifier), d.value, k.value, h.value, p.value, DATEADD(millisecond, CAST(w.value AS int), ${DB_NOW})
FROM OPENJSON(@0) AS m
INNER JOIN OPENJSON(@1) AS d ON d.[key] = m.[key]
INNER JOIN OPENJSON(@2) AS k ON k.[key] = m.[key]
INNER JOIN OPENJSON(@3) AS h ON h.[key] = m.[key]
INNER JOIN OPENJSON(@4) AS p ON p.[key] = m.[key]
INNER JOIN OPENJSON(@5) AS w ON w.[key] = m.[key]
ORDER BY CAST(m.[key] AS int);
SELECT i.id, ${guidOut('i.message_id')} AS message_id FROM @inserted AS i;`;

/**
 * The outbox claim (claim.sql.ts), in the claim transaction after `claimLock` of the outbox: at
 * most one row per key and destination, the oldest unfinished; unordered rows freely. Parameters
 * @0 … @5 and output as `claimStatement`.
 */
export const claimOutbox = (t: ResolvedTableNames): string => claimStatement(t, 'outbox');

/**
 * No parameters. Backlog and oldest pending age (seconds, database clock) per destination, for
 * the gauges: never waits (rows held right now are skipped). Output: `label`, `pending` (int),
 * `oldest_age_seconds` (float).
 */
export const outboxBacklog = (t: ResolvedTableNames): string => /* sql */ `${READ_COMMITTED}
SELECT x.destination AS label, COUNT(*) AS pending,
       CAST(DATEDIFF_BIG(millisecond, MIN(x.created_at), ${DB_NOW}) AS float) / 1000 AS oldest_age_seconds
FROM ${qualified(t, 'outbox')} AS x ${SKIP_HINTS}
WHERE x.state = 'pending'
GROUP BY x.destination;`;
