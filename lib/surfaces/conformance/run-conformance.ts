import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTablesStatements } from '../../database/dialects/own-schema.js';
import { resolveDialect } from '../../database/dialects/resolve-dialect.js';
import type { DialectName } from '../../database/dialects/dialect-registry.js';
import type { SqlDialect } from '../../database/sql-dialect.interface.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import { resolveOptions } from '../../config/options/resolve-options.js';
import { errorText } from '../../shared/errors/error-text.js';
import { claimLockCheck } from './checks/claim-lock.check.js';
import { fifoPerKeyCheck, oneInFlightPerKeyCheck } from './checks/claims-per-key.check.js';
import { databaseClockCheck } from './checks/database-clock.check.js';
import { fenceExpiredLeaseCheck, fenceStaleTokenCheck } from './checks/fence.check.js';
import { inboxDedupCheck } from './checks/inbox-dedup.check.js';
import { notifyCheck } from './checks/notify.check.js';
import type { ConformanceCheckDefinition } from './conformance-check.js';
import { ConformanceContext } from './conformance-context.js';
import { ConformanceFailure } from './conformance-failure.js';
import type { ConformanceCheck, ConformanceReport } from './conformance-report.js';
import {
  badConnections,
  conformanceNeedsConnection,
  notRunAfterSetup,
  pooledKeepingStatements,
  pooledUnnamed,
  schemaNotDropped,
  schemaTaken,
  sessionPerConnection,
} from './conformance.messages.js';
import { preparedStatementsNotKept } from '../../shared/queuebox.messages.js';
import { dataSourceOptionsFromUrl } from './connection-url.js';

/**
 * Options of `runConformance()`: the database, as an initialized DataSource (its pool is used and
 * left open) or a URL (a DataSource is opened for the run and closed after it).
 * @publicApi
 */
export interface ConformanceOptions {
  dataSource?: DataSource;
  /** `postgres://user:password@host:port/database` or `mssql://user:password@host:port/database?trustServerCertificate=true`. */
  url?: string;
  /**
   * The schema the run creates for itself and drops afterwards. It must not exist. Default
   * `queuebox_conformance_<random>`.
   */
  schema?: string;
  /** Claimers (and connections) of the concurrency checks, 2 to 32. Default 4. */
  connections?: number;
  /** The longest a check waits for the database (its clock to pass a lease, a notification). Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * As QueueBox's `preparedStatements` option (PostgreSQL): set it as your application does.
   * Unset: as QueueBox, named unless the connections keep no prepared statements (the pooling check).
   */
  preparedStatements?: boolean;
  /** As QueueBox's `notify.listenUrl` (PostgreSQL): where the notify check listens. Set it as your application does. */
  listenUrl?: string;
}

const CHECKS: readonly ConformanceCheckDefinition[] = [
  fenceStaleTokenCheck,
  fenceExpiredLeaseCheck,
  databaseClockCheck,
  oneInFlightPerKeyCheck,
  fifoPerKeyCheck,
  inboxDedupCheck,
  claimLockCheck,
  notifyCheck,
];

/**
 * Runs QueueBox's claim contract against a database, in a schema of its own that it creates
 * with QueueBox's tables and drops afterwards (also when a check fails), through QueueBox's own
 * statements and claim code: the fence refuses stale tokens and ended leases, the database clock
 * rules, one row per key is in flight across concurrent claimers on several connections, rows of
 * a key are claimed in order, the inbox stores one row per (source, idempotency key), the claim
 * lock serializes, and (PostgreSQL) wake-ups cross instances. Resolves to a report with each
 * check's evidence; it never throws for a check that fails (a bad option is an
 * `InvalidArgumentError`, a database that cannot be reached rejects).
 * @publicApi
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const connections = options.connections ?? 4;
  if (!Number.isInteger(connections) || connections < 2 || connections > 32)
    throw new InvalidArgumentError('connections', badConnections(connections));
  const schema = options.schema ?? `queuebox_conformance_${randomBytes(5).toString('hex')}`;
  // Validates the schema name as the module's option would.
  const tables = resolveOptions({ schema }).tables;
  let dataSource = options.dataSource;
  let owned = false;
  if (!dataSource) {
    if (!options.url) throw new InvalidArgumentError('url', conformanceNeedsConnection());
    // One connection more than the claimers: the claim-lock check's holder keeps one open.
    dataSource = await new DataSource(dataSourceOptionsFromUrl(options.url, connections + 2)).initialize();
    owned = true;
  }
  try {
    const dialect = resolveDialect(dataSource, tables, options.preparedStatements ?? true);
    return await runIn(
      new ConformanceContext(dataSource, dialect, connections, options.timeoutMs ?? 10_000, options.listenUrl),
      dialect,
      schema,
      options.preparedStatements,
    );
  } finally {
    if (owned) await dataSource.destroy();
  }
}

async function runIn(
  context: ConformanceContext,
  dialect: SqlDialect,
  schema: string,
  preparedStatements: boolean | undefined,
): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  let created = false;
  // First, as at QueueBox's start-up: what the connections keep across transactions (a pooler).
  checks.push(
    await timed(
      'pooling',
      'QueueBox adapts to what its connections keep across transactions (a pooler in transaction mode)',
      () => adaptToPooling(dialect, context, preparedStatements),
    ),
  );
  const setup = await timed('schema', "a schema of the run's own with QueueBox's tables", async () => {
    const exists = await context.runner.run(dialect.schemaExists(schema));
    if (exists) throw new ConformanceFailure(schemaTaken(schema));
    created = true;
    for (const statement of createTablesStatements(dialect)) await context.runner.run(statement);
    return `created schema ${schema} with QueueBox's tables (its own DDL, as the migrations run it)`;
  });
  checks.push(setup);
  try {
    for (const check of CHECKS) {
      if (setup.status !== 'pass') {
        checks.push({
          name: check.name,
          title: check.title,
          status: 'skip',
          evidence: '',
          reason: notRunAfterSetup(),
          durationMs: 0,
        });
        continue;
      }
      const skipReason = check.skipReason?.(context);
      if (skipReason)
        checks.push({
          name: check.name,
          title: check.title,
          status: 'skip',
          evidence: '',
          reason: skipReason,
          durationMs: 0,
        });
      else checks.push(await timed(check.name, check.title, () => check.run(context)));
    }
  } finally {
    // Dropped whatever happened, but only when this run made it (never a schema that was there before).
    if (created)
      checks.push(
        await timed('cleanup', 'the schema of the run is dropped', () => dropOwnSchema(context, dialect, schema)),
      );
  }
  // resolveDialect builds only the dialects the registry names.
  return {
    passed: checks.every((check) => check.status !== 'fail'),
    database: dialect.type as DialectName,
    schema,
    checks,
  };
}

async function adaptToPooling(
  dialect: SqlDialect,
  context: ConformanceContext,
  preparedStatements: boolean | undefined,
): Promise<string> {
  const pooling = await dialect.probePooling(context.dataSource);
  if (!pooling.sessionPerTransaction) return sessionPerConnection();
  if (pooling.preparedStatementsKept) return pooledKeepingStatements();
  if (preparedStatements === true) throw new ConformanceFailure(preparedStatementsNotKept());
  dialect.stopPreparing();
  return pooledUnnamed();
}

async function dropOwnSchema(context: ConformanceContext, dialect: SqlDialect, schema: string): Promise<string> {
  if (!(await context.runner.run(dialect.schemaExists(schema))))
    return `schema ${schema} was never made: nothing to drop`;
  await context.runner.run(dialect.dropSchema());
  if (await context.runner.run(dialect.schemaExists(schema))) throw new ConformanceFailure(schemaNotDropped(schema));
  return `dropped schema ${schema}`;
}

async function timed(
  name: ConformanceCheck['name'],
  title: string,
  run: () => Promise<string>,
): Promise<ConformanceCheck> {
  const started = Date.now();
  try {
    const evidence = await run();
    return { name, title, status: 'pass', evidence, durationMs: Date.now() - started };
  } catch (error) {
    // A check that did not hold says what it saw; anything else is the database's own error.
    const reason = error instanceof ConformanceFailure ? error.message : `the database refused: ${errorText(error)}`;
    return { name, title, status: 'fail', evidence: '', reason, durationMs: Date.now() - started };
  }
}
