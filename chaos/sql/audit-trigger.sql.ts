import type { ChaosTables } from './chaos-names.js';

/*
 * The audit of fenced writes, on the database clock. A BEFORE UPDATE row trigger (it fires once
 * the row has passed the UPDATE's WHERE on its newest version, so only writes that land are
 * recorded; a rolled-back write takes its audit row with it) on QueueBox's two tables of the
 * chaos schema records every UPDATE of a `processing` row, and every UPDATE that finishes a row,
 * with the lease the row had before it, `statement_timestamp()` (the clock the fence reads) and
 * `clock_timestamp()` (when the write reached the row):
 *
 *   renew            processing → processing, same token       fenced: late when statement > old lease
 *   finish           processing → sent / processed / dead        fenced: late when statement > old lease
 *   retry            processing → pending, next_attempt_at set   fenced: late when statement > old lease
 *   reclaim          processing → pending, next_attempt_at kept  a reclaim: early when statement < old lease
 *   steal            processing → processing, new token          a claim of an expired row: early when statement < old lease
 *   finish-unclaimed pending / finished → sent / processed / dead no claim at all: always late
 *
 * A late write began after its lease ended: the fence's own clock was violated. A fenced write
 * that began in time may still reach its row after the lease, when it waited for the row's lock
 * (behind a reclaim that then found nothing to do, or a server slowed by crash recovery):
 * `landed_late` records it for information. The row lock serializes it with every reclaim and
 * steal, which recheck state and token on the newest row version, so it lands before any other
 * owner or not at all; the checks count one that landed after another owner as late too
 * (checks.sql.ts). An early write took a row whose lease had not ended. Created by the chaos
 * harness only, on its own schema.
 */
export const createAuditTrigger = (t: ChaosTables): string[] => [
  /* sql */ `CREATE TABLE ${t.audit} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tbl text NOT NULL, row_id bigint NOT NULL, kind text NOT NULL,
    old_state text NOT NULL, new_state text NOT NULL, old_lease timestamptz, at timestamptz NOT NULL,
    statement_at timestamptz NOT NULL, late boolean NOT NULL, early boolean NOT NULL, landed_late boolean NOT NULL)`,
  /* sql */ `CREATE FUNCTION ${t.schema}.chaos_audit_write() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  kind text;
  at timestamptz := clock_timestamp();
  began timestamptz := statement_timestamp();
  finished text[] := ARRAY['sent', 'processed', 'dead'];
BEGIN
  IF OLD.state = 'processing' AND NEW.state = 'processing' THEN
    kind := CASE WHEN NEW.claim_token IS NOT DISTINCT FROM OLD.claim_token THEN 'renew' ELSE 'steal' END;
  ELSIF OLD.state = 'processing' AND NEW.state = 'pending' THEN
    kind := CASE WHEN NEW.next_attempt_at IS DISTINCT FROM OLD.next_attempt_at THEN 'retry' ELSE 'reclaim' END;
  ELSIF OLD.state = 'processing' THEN
    kind := 'finish';
  ELSIF NEW.state = ANY (finished) THEN
    kind := 'finish-unclaimed';
  ELSE
    RETURN NEW;
  END IF;
  INSERT INTO ${t.audit} (tbl, row_id, kind, old_state, new_state, old_lease, at, statement_at, late, early, landed_late)
  VALUES (TG_TABLE_NAME, OLD.id, kind, OLD.state, NEW.state, OLD.lease_expires_at, at, began,
          kind = 'finish-unclaimed' OR (kind IN ('renew', 'finish', 'retry') AND began > OLD.lease_expires_at),
          kind IN ('reclaim', 'steal') AND began < OLD.lease_expires_at,
          kind IN ('renew', 'finish', 'retry') AND began <= OLD.lease_expires_at AND at > OLD.lease_expires_at);
  RETURN NEW;
END
$fn$`,
  ...[t.outbox, t.inbox].map(
    (table) => /* sql */ `CREATE TRIGGER chaos_audit BEFORE UPDATE ON ${table} FOR EACH ROW
    WHEN (OLD.state = 'processing' OR NEW.state IN ('sent', 'processed', 'dead'))
    EXECUTE FUNCTION ${t.schema}.chaos_audit_write()`,
  ),
];
