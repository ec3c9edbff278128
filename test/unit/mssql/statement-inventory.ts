import { WalkCursor } from '../../../lib/engine/walk-cursor.js';
import { mssqlDialect } from '../../../lib/database/dialects/mssql/mssql.dialect.js';
import { mssqlSchemaSteps } from '../../../lib/database/dialects/mssql/mssql-schema-steps.js';
import type {
  ClaimPlan,
  ClaimRequest,
  DeadRowPage,
  SqlStatement,
} from '../../../lib/database/sql-dialect.interface.js';
import { statements } from '../../../lib/database/statements.js';
import { StatementCatalog } from '../../../lib/database/dialects/statement-catalog.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';

/*
 * Every statement the SQL Server dialect can send, by a stable name, for one table configuration:
 * what the grammar gate parses (mssql-grammar.spec.ts) and the semantic checks read
 * (mssql-statements.spec.ts). A statement definition (statements.ts) or a composite of the catalog
 * that is not called here fails the inventory's own test: a new statement cannot skip the gate.
 */

/** The two configurations CI checks: the defaults, and a schema with custom table names. */
export const tableConfigurations = {
  default: resolveOptions({}).tables,
  custom: resolveOptions({ schema: 'messaging', tables: { outbox: 'shop_outbox', inbox: 'shop_inbox' } }).tables,
} as const;

export type TableConfiguration = keyof typeof tableConfigurations;

/** A statement of the inventory: its text, its parameters, and which method produced it. */
export interface InventoryStatement {
  method: string;
  statement: Pick<SqlStatement, 'sql' | 'params'>;
}

/** The members of the statement catalog's class that do not produce a statement: nothing to parse. */
export const methodsWithoutStatements = new Set([
  'constructor',
  'type',
  'displayName',
  'wakesReplicas',
  'claimLockAlways',
  'isolationSticks',
  'execute',
  'bounded',
  'classifyError',
  'pooling',
  'probePooling',
  'stopPreparing',
  'unprepared',
  'discardConnection',
  'autocommitConnection',
  'createWakeUpTransport',
  'plan',
  'lock',
  'claimParams',
]);

const token = '4f0c6c1e-58d6-4c53-9a43-1b2d3e4f5a6b';
const row = { id: '42', token };
const request: ClaimRequest = new WalkCursor().request(100, 30_000);
/** A dead-letter page with every filter set, so that each bound parameter shows up. */
const deadPage: DeadRowPage = {
  filter: {
    stream: 'billing',
    errorContains: 'HTTP 5',
    deadSince: new Date('2026-11-30T00:00:00Z'),
    deadBefore: new Date('2026-12-01T00:00:00Z'),
  },
  afterId: '0',
  limit: 50,
};
const outboxRow = (delayMs: number) => ({
  messageId: '0193b2c4-0000-7000-8000-00000000000a',
  destination: 'billing',
  key: 'order-1',
  headers: '{}',
  payload: '{"n":1}',
  delayMs,
});

/** The statements of a claim plan: probe, lock set-up, lock, claim. */
function planStatements(method: string, name: string, plan: ClaimPlan<unknown>): Array<[string, InventoryStatement]> {
  const parts: Array<[string, Pick<SqlStatement, 'sql' | 'params'> | undefined]> = [
    [`${name}.probe`, plan.probe],
    ...(plan.lock?.setup ?? []).map((statement, index): [string, SqlStatement] => [
      `${name}.lock-setup-${index + 1}`,
      statement,
    ]),
    [`${name}.lock`, plan.lock?.acquire],
    [`${name}.claim`, plan.claim],
  ];
  return parts
    .filter((part): part is [string, SqlStatement] => part[1] !== undefined)
    .map(([key, statement]) => [key, { method, statement }]);
}

/** Every statement of the dialect for `configuration`, keyed by a file-safe name. */
export function mssqlStatementInventory(configuration: TableConfiguration): Map<string, InventoryStatement> {
  const tables = tableConfigurations[configuration];
  const dialect = new StatementCatalog(mssqlDialect, tables);
  const entries: Array<[string, InventoryStatement]> = [
    ['startup-probe', { method: 'startupProbe', statement: dialect.startupProbe()! }],
    ['insert-outbox-one', { method: 'insertOutbox', statement: dialect.insertOutbox([outboxRow(0)]) }],
    [
      'insert-outbox-many',
      { method: 'insertOutbox', statement: dialect.insertOutbox([outboxRow(0), outboxRow(5_000)]) },
    ],
    ...planStatements(
      'claimOutbox',
      'claim-outbox',
      dialect.claimOutbox(['billing', 'sink'], { ...request, afterIdle: true }, { lock: false }),
    ),
    ...planStatements(
      'claimInbox',
      'claim-inbox',
      dialect.claimInbox(['orders', 'payments'], { ...request, afterIdle: true }),
    ),
    ...planStatements(
      'claimPull',
      'claim-pull',
      dialect.claimPull('orders', { ...request, afterIdle: true }, { lock: false }),
    ),
    ['outbox-backlog', { method: 'outboxBacklog', statement: dialect.outboxBacklog() }],
    [
      'insert-inbox',
      {
        method: 'insertInbox',
        statement: dialect.insertInbox({
          source: 'orders',
          idempotencyKey: 'evt-1',
          key: 'order-1',
          headers: '{}',
          payload: '{}',
        }),
      },
    ],
    ['find-inbox', { method: 'findInbox', statement: dialect.findInbox('orders', 'evt-1') }],
    ['inbox-backlog', { method: 'inboxBacklog', statement: dialect.inboxBacklog() }],
    ...(['outbox', 'relay', 'pull'] as const).map((kind): [string, InventoryStatement] => [
      `complete-many-${kind}`,
      { method: 'completeMany', statement: dialect.completeMany(kind as 'outbox', [row], 10_000) },
    ]),
    ...(['outbox', 'inbox'] as const).flatMap((table): Array<[string, InventoryStatement]> => [
      [`renew-${table}`, { method: 'renew', statement: dialect.renew(table, row, 30_000) }],
      [`renew-many-${table}`, { method: 'renewMany', statement: dialect.renewMany(table, [row], 30_000) }],
      [`retry-${table}`, { method: 'retry', statement: dialect.retry(table, row, 1_000, 'answered HTTP 503') }],
      [
        `dead-letter-${table}`,
        { method: 'deadLetter', statement: dialect.deadLetter(table, row, 'answered HTTP 400') },
      ],
      [
        `reclaim-expired-${table}`,
        { method: 'reclaimExpired', statement: dialect.reclaimExpired(table, 100, ['orders']) },
      ],
      [
        `purge-${table}-done`,
        { method: 'purgeFinished', statement: dialect.purgeFinished(table, 'done', 86_400_000, 1_000) },
      ],
      [
        `purge-${table}-dead`,
        { method: 'purgeFinished', statement: dialect.purgeFinished(table, 'dead', 86_400_000, 1_000) },
      ],
      [`replay-dead-${table}`, { method: 'replayDead', statement: dialect.replayDead(table, ['1', '2']) }],
    ]),
    ['list-dead-outbox', { method: 'listDeadOutbox', statement: dialect.listDeadOutbox(deadPage) }],
    ['list-dead-inbox', { method: 'listDeadInbox', statement: dialect.listDeadInbox(deadPage) }],
    ...(['outbox', 'inbox'] as const).flatMap((table): Array<[string, InventoryStatement]> => [
      [`inspect-dead-${table}`, { method: 'inspectDead', statement: dialect.inspectDead(table, '42', true) }],
      [
        `replay-dead-matching-${table}`,
        { method: 'replayDeadMatching', statement: dialect.replayDeadMatching(table, deadPage) },
      ],
      [`discard-dead-${table}`, { method: 'discardDead', statement: dialect.discardDead(table, ['1', '2']) }],
      [
        `discard-dead-matching-${table}`,
        { method: 'discardDeadMatching', statement: dialect.discardDeadMatching(table, deadPage) },
      ],
      [`row-states-${table}`, { method: 'rowStates', statement: dialect.rowStates(table, ['1', '2']) }],
      [`blocked-keys-${table}`, { method: 'blockedKeys', statement: dialect.blockedKeys(table, 50) }],
      [`claims-at-risk-${table}`, { method: 'claimsAtRisk', statement: dialect.claimsAtRisk(table, 10_000, 50) }],
      [`dead-counts-${table}`, { method: 'deadCounts', statement: dialect.deadCounts(table) }],
    ]),
    ['database-now', { method: 'databaseNow', statement: dialect.databaseNow() }],
    ['pending-work', { method: 'pendingWork', statement: dialect.pendingWork() }],
    ['schema-exists', { method: 'schemaExists', statement: dialect.schemaExists('messaging') }],
    ['table-columns', { method: 'tableColumns', statement: dialect.tableColumns() }],
    // Only a schema of QueueBox's own is ever dropped (a conformance run's): with the default tables, one is named.
    [
      'drop-schema',
      {
        method: 'dropSchema',
        statement: (tables.schema
          ? dialect
          : new StatementCatalog(mssqlDialect, { ...tables, schema: 'queuebox_conformance_run' })
        ).dropSchema(),
      },
    ],
  ];
  mssqlSchemaSteps(tables).forEach((step) => {
    const slug = step.name.toLowerCase();
    step.up.forEach((sql, index) =>
      entries.push([`schema-${slug}-up-${index + 1}`, { method: 'schema', statement: { sql, params: [] } }]),
    );
    step.down.forEach((sql, index) =>
      entries.push([`schema-${slug}-down-${index + 1}`, { method: 'schema', statement: { sql, params: [] } }]),
    );
  });
  return new Map(entries);
}

/** The names of the statement catalog's methods that produce statements: one per definition, and its composites. */
export function mssqlStatementMethods(): string[] {
  const composites = Object.getOwnPropertyNames(StatementCatalog.prototype).filter(
    (name) => !methodsWithoutStatements.has(name),
  );
  return [...Object.keys(statements), ...composites];
}
