import { describeUrl } from '../../config/validation/url-secrets.js';

/*
 * Messages of the conformance check (queuebox/conformance): reasons say what was expected and
 * what the database did instead.
 */

export const clockNotReached = (what: string, instant: Date, now: Date, timeoutMs: number): string =>
  `waited ${timeoutMs} ms for the database clock to pass ${instant.toISOString()} (${what}); it still read ${now.toISOString()}`;

export const schemaTaken = (schema: string): string =>
  `schema "${schema}" exists already: the check runs only in a schema of its own, which it drops afterwards (pass another --schema, or none for a random name)`;

export const schemaNotDropped = (schema: string): string =>
  `schema ${schema} is still there after its drop: drop it by hand`;

export const notRunAfterSetup = (): string => 'not run: the schema of the run could not be made (see the schema check)';

export const noWakeUpTransport = (database: string): string =>
  `${database} has no LISTEN/NOTIFY: replicas find new rows by polling, which the claim checks cover`;

export const conformanceNeedsConnection = (): string =>
  'runConformance() needs a DataSource (initialized) or a url (postgres://… or mssql://…)';

export const badConformanceUrl = (url: string): string =>
  `"${describeUrl(url)}" is not a database URL QueueBox knows: use postgres://user:password@host:port/database or mssql://user:password@host:port/database?trustServerCertificate=true`;

export const badConnections = (value: number): string =>
  `connections must be an integer from 2 to 32 (several connections claim at once), not ${String(value)}`;

export const sessionPerConnection = (): string =>
  'each connection kept its database session across transactions (a direct connection, or a pooler in session mode): prepared statements and LISTEN last';

export const pooledUnnamed = (): string =>
  'the connections are pooled per transaction (PgBouncer in transaction mode, or a pooler like it) and keep no prepared statement from one transaction to the next: QueueBox runs its statements unnamed there, as it does at start-up; its LISTEN needs notify.listenUrl (see the notify check)';

export const pooledKeepingStatements = (): string =>
  'the connections are pooled per transaction (PgBouncer in transaction mode, or a pooler like it), and the pooler carries prepared statements across them (PgBouncer 1.21+ with max_prepared_statements); its LISTEN needs notify.listenUrl (see the notify check)';

export const listenThroughTransactionPooler = (): string =>
  'not tried: the connections are pooled per transaction (PgBouncer in transaction mode, or a pooler like it), where a LISTEN does not last past its transaction, so that replicas connected this way poll and receive no wake-ups. ' +
  'Fix: give QueueBox notify.listenUrl (and this check --listen-url), a postgres:// URL that reaches the database directly or through a pooler in session mode';
