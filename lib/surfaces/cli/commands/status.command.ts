import type { Backlog, BlockedKey, ClaimAtRisk } from '../../../shared/interfaces/admin.interface.js';
import type { DialectName } from '../../../database/dialects/dialect-registry.js';
import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { asFlagErrors } from '../admin-errors.js';
import type { CliCommand } from '../cli-command.interface.js';
import { CONNECTION_FLAGS, OUTPUT_FLAGS, parseFlags, readIntFlag, readTableFlags } from '../cli-flags.js';
import { DATABASE_URL_VARIABLE, parseConnectionUrl } from '../connection-url.js';
import { textTable } from '../text-table.js';
import { settleAll } from '../../../engine/settle-all.js';

const FLAGS = { ...CONNECTION_FLAGS, within: { type: 'string' }, limit: { type: 'string' }, ...OUTPUT_FLAGS } as const;

/** Dead rows of one destination or source. */
interface DeadCount {
  name: string;
  dead: number;
}

/** What `queuebox status --json` prints. */
export interface StatusReport {
  database: string;
  dialect: DialectName;
  tables: ResolvedTableNames;
  backlog: Backlog;
  dead: { outbox: DeadCount[]; inbox: DeadCount[] };
  blockedKeys: BlockedKey[];
  claimsAtRisk: ClaimAtRisk[];
}

/**
 * `queuebox status`: the state of the tables, as the database sees it. The loops do not run in
 * the CLI's process, so there are no loop snapshots here: those are per replica (the admin API).
 */
export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'backlog and oldest age, dead letters, blocked keys and claims at risk, per destination and source',
  usage: `Usage: queuebox status --url <url> [--schema <name>] [--outbox-table <name>] [--inbox-table <name>] [--within <ms>] [--limit <n>] [--json]

Reads the tables (nothing is changed; no loop is started):
  backlog        pending rows and the age of the oldest, per destination (outbox) and source (inbox)
  dead           dead rows per destination and source
  blocked keys   keys whose head row is retrying or dead (they hold the key's younger rows back)
  claims at risk rows in flight whose lease ends within --within ms, or already ended

  --url            postgres://… or mssql://… (default: $${DATABASE_URL_VARIABLE}); the scheme picks the database
  --schema, --outbox-table, --inbox-table   the names given to QueueBoxModule
  --within         the lease window of "at risk", in ms (default 30000)
  --limit          at most this many blocked keys and claims at risk per table (default 100)
  --json           the report as JSON`,
  async run(args, { env }) {
    const { values } = parseFlags('status', args, FLAGS);
    const connection = parseConnectionUrl(values.url ?? env[DATABASE_URL_VARIABLE]);
    const tables = readTableFlags(values);
    const withinMs = readIntFlag(values.within, '--within', 30_000, 0, 86_400_000);
    const limit = readIntFlag(values.limit, '--limit', 100, 1, 1_000);
    const { withQueueBox } = await import('../queuebox-context.js');
    const report = await withQueueBox(connection, tables, async ({ admin, runner, dialect }): Promise<StatusReport> => {
      const deadOf = async (table: 'outbox' | 'inbox') =>
        (await runner.run(dialect.deadCounts(table))).map((row) => ({ name: row.label, dead: row.dead }));
      const [backlog, outboxDead, inboxDead, blockedKeys, atRisk] = await asFlagErrors(() =>
        settleAll([
          admin.backlog(),
          deadOf('outbox'),
          deadOf('inbox'),
          admin.blockedKeys({ limit }),
          admin.claimsAtRisk({ withinMs, limit }),
        ]),
      );
      return {
        database: connection.masked,
        dialect: connection.dialect,
        tables,
        backlog,
        dead: { outbox: outboxDead, inbox: inboxDead },
        blockedKeys,
        claimsAtRisk: atRisk.expiring,
      };
    });
    return { data: report, text: statusText(report) };
  },
};

function statusText(report: StatusReport): string {
  const seconds = (value: number): string => `${Math.round(value)} s`;
  const streams = (table: 'outbox' | 'inbox') => {
    const names = new Set([
      ...report.backlog[table].map((entry) => entry.name),
      ...report.dead[table].map((entry) => entry.name),
    ]);
    return [...names].sort().map((name) => {
      const backlog = report.backlog[table].find((entry) => entry.name === name);
      return [
        table,
        name,
        backlog?.pending ?? 0,
        backlog ? seconds(backlog.oldestAgeSeconds) : null,
        report.dead[table].find((entry) => entry.name === name)?.dead ?? 0,
      ];
    });
  };
  const rows = [...streams('outbox'), ...streams('inbox')];
  return [
    `QueueBox on ${report.database} (${report.tables.schema ? `${report.tables.schema}.` : ''}${report.tables.outbox}, ${report.tables.inbox})`,
    '',
    rows.length === 0
      ? 'Backlog: none, and no dead letters.'
      : textTable(['TABLE', 'DESTINATION/SOURCE', 'PENDING', 'OLDEST', 'DEAD'], rows),
    '',
    report.blockedKeys.length === 0
      ? 'Blocked keys: none.'
      : `Blocked keys:\n${textTable(
          ['TABLE', 'DESTINATION/SOURCE', 'KEY', 'HEAD ROW', 'REASON', 'ATTEMPTS', 'AGE', 'WAITING', 'LAST ERROR'],
          report.blockedKeys.map((key) => [
            key.table,
            key.stream,
            key.key,
            key.id,
            key.reason,
            key.attempts,
            seconds(key.ageSeconds),
            key.waiting,
            key.lastError,
          ]),
        )}`,
    '',
    report.claimsAtRisk.length === 0
      ? 'Claims at risk: none.'
      : `Claims at risk:\n${textTable(
          ['TABLE', 'ROW', 'DESTINATION/SOURCE', 'KEY', 'ATTEMPTS', 'LEASE ENDS IN'],
          report.claimsAtRisk.map((claim) => [
            claim.table,
            claim.id,
            claim.stream,
            claim.key,
            claim.attempts,
            `${(claim.expiresInMs / 1000).toFixed(1)} s`,
          ]),
        )}`,
  ].join('\n');
}
