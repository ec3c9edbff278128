import type { ChaosTables } from './chaos-names.js';

/**
 * The business tables of the chaos app, next to QueueBox's in the run's schema. What the checks
 * compare comes from here, never from QueueBox's own tables:
 *
 * - `chaos_attempts`: every message a producer meant to enqueue, written (autocommit) before its
 *   transaction, with the intent (`commit`, or `rollback` on purpose);
 * - `chaos_orders`: the business row written in the producer's transaction with the outbox
 *   message: present exactly when the message was committed;
 * - `chaos_fed`: every intake delivery the sender got a 2xx for (relayed or pulled);
 * - `chaos_deliveries`: every request the sink received, in arrival order, with its answer;
 * - `chaos_effects`: the pull worker's business row, unique per message: a second effect of one
 *   message increments `effects` instead of failing, so that it is counted, never hidden.
 */
export const createBusinessTables = (t: ChaosTables): string[] => [
  /* sql */ `CREATE TABLE ${t.attempts} (
    business_id text PRIMARY KEY, lane integer NOT NULL, seq integer NOT NULL, key text NOT NULL, intent text NOT NULL,
    UNIQUE (lane, seq))`,
  /* sql */ `CREATE TABLE ${t.orders} (
    business_id text PRIMARY KEY, lane integer NOT NULL, seq integer NOT NULL, key text NOT NULL, message_id uuid NOT NULL)`,
  /* sql */ `CREATE TABLE ${t.fed} (
    business_id text PRIMARY KEY, source text NOT NULL, lane integer NOT NULL, seq integer NOT NULL, key text NOT NULL,
    posts integer NOT NULL, duplicate_answers integer NOT NULL)`,
  /* sql */ `CREATE TABLE ${t.deliveries} (
    arrival bigint PRIMARY KEY, path text NOT NULL, message_id text, business_id text, key text, status integer NOT NULL)`,
  /* sql */ `CREATE INDEX ON ${t.deliveries} (business_id)`,
  /* sql */ `CREATE SEQUENCE ${t.effectSeq}`,
  /* sql */ `CREATE TABLE ${t.effects} (
    business_id text PRIMARY KEY, key text NOT NULL, inbox_id bigint NOT NULL, effect_seq bigint NOT NULL, effects integer NOT NULL DEFAULT 1)`,
];

/** $1 text[] ids, $2 integer lane, $3 integer[] seqs, $4 text key, $5 text intent. Idempotent: a retried insert after a lost connection. */
export const insertAttempts = (t: ChaosTables): string => /* sql */ `
INSERT INTO ${t.attempts} (business_id, lane, seq, key, intent)
SELECT a.id, $2, a.seq, $4, $5 FROM unnest($1::text[], $3::integer[]) AS a(id, seq)
ON CONFLICT (business_id) DO NOTHING`;

/** $1 integer lane: the next seq the lane has not attempted yet (a restarted replica resumes there). */
export const nextSeq = (t: ChaosTables): string => /* sql */ `
SELECT coalesce(max(seq) + 1, 0)::integer AS next FROM ${t.attempts} WHERE lane = $1`;

/** $1 text[] ids, $2 integer lane, $3 integer[] seqs, $4 text key, $5 uuid[] message ids. In the producer's transaction. */
export const insertOrders = (t: ChaosTables): string => /* sql */ `
INSERT INTO ${t.orders} (business_id, lane, seq, key, message_id)
SELECT o.id, $2, o.seq, $4, o.message_id FROM unnest($1::text[], $3::integer[], $5::uuid[]) AS o(id, seq, message_id)`;

/** $1 business id, $2 key, $3 inbox row id. The pull worker's effect, in its completing transaction. */
export const recordEffect = (t: ChaosTables): string => /* sql */ `
INSERT INTO ${t.effects} (business_id, key, inbox_id, effect_seq) VALUES ($1, $2, $3, nextval('${t.effectSeq}'))
ON CONFLICT (business_id) DO UPDATE SET effects = ${t.effects}.effects + 1`;

/**
 * $1..$6 arrays of the sink's buffered deliveries. Idempotent: a batch whose commit the server
 * made just before it crashed is written again after the restart.
 */
export const insertDeliveries = (t: ChaosTables): string => /* sql */ `
INSERT INTO ${t.deliveries} (arrival, path, message_id, business_id, key, status)
SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[])
ON CONFLICT (arrival) DO NOTHING`;

/** The intake sender's acknowledged deliveries. */
export const insertFed = (t: ChaosTables): string => /* sql */ `
INSERT INTO ${t.fed} (business_id, source, lane, seq, key, posts, duplicate_answers)
SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::text[], $6::integer[], $7::integer[])`;

/** How many messages the producers have attempted so far. */
export const countAttempts = (t: ChaosTables): string => /* sql */ `SELECT count(*)::integer AS n FROM ${t.attempts}`;

/** Rows not finished yet, in both of QueueBox's tables. */
export const countUnfinished = (t: ChaosTables): string => /* sql */ `
SELECT (SELECT count(*) FROM ${t.outbox} WHERE state IN ('pending', 'processing'))::integer
     + (SELECT count(*) FROM ${t.inbox} WHERE state IN ('pending', 'processing'))::integer AS n`;
