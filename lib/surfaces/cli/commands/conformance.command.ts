import { formatConformanceReport, runConformance } from '../../conformance/index.js';
import type { CliCommand } from '../cli-command.interface.js';
import { OUTPUT_FLAGS, parseFlags, readIntFlag, readTableFlags } from '../cli-flags.js';
import { DATABASE_URL_VARIABLE, parseConnectionUrl } from '../connection-url.js';
import { listenUrlNotPostgres } from '../cli.messages.js';
import { CliUsageError } from '../../../shared/errors/cli-usage.error.js';

const FLAGS = {
  url: { type: 'string' },
  schema: { type: 'string' },
  connections: { type: 'string' },
  'listen-url': { type: 'string' },
  ...OUTPUT_FLAGS,
} as const;

/**
 * `queuebox conformance`: QueueBox's claim contract checked on a database (queuebox/conformance),
 * in a schema of the run's own that is dropped afterwards. Exit code 1 when any check fails.
 */
export const conformanceCommand: CliCommand = {
  name: 'conformance',
  summary:
    "check that a database keeps QueueBox's claim contract (fence, clock, per-key order, dedup, claim lock, NOTIFY)",
  usage: `Usage: queuebox conformance --url <url> [--schema <name>] [--connections <n>] [--listen-url <url>] [--json]

Runs QueueBox's claim contract against the database with QueueBox's own statements, in a schema
the run creates (with QueueBox's tables) and drops afterwards, and prints each check with what it
observed: the fence refuses stale tokens and ended leases, the database clock rules, one row per
key in flight across concurrent claimers, FIFO per key, inbox dedup, the claim lock serializes,
and (PostgreSQL) NOTIFY reaches other instances. It first finds out, as QueueBox does at start-up,
whether the connections are pooled per transaction (PgBouncer in transaction mode) and adapts to
it. Takes about 15 s. Exit code 1 if a check fails.

  --url           postgres://… or mssql://… (or ${DATABASE_URL_VARIABLE}); the role your migrations run as
  --schema        the schema to create for the run; it must not exist (default queuebox_conformance_<random>)
  --connections   concurrent claimers, each on its own connection, 2 to 32 (default 4)
  --listen-url    postgres://… where the notify check listens, as QueueBox's notify.listenUrl (behind a
                  pooler in transaction mode: a direct or session-mode URL)
  --json          the report as JSON: {passed, database, schema, checks: [{name, title, status, evidence, reason?, durationMs}]}`,
  async run(args, context) {
    const { values } = parseFlags('conformance', args, FLAGS);
    const url = values.url ?? context.env[DATABASE_URL_VARIABLE];
    // Checked as every connecting command checks it (a usage error naming --url), then used by the run's own pool.
    parseConnectionUrl(url);
    const schema = values.schema === undefined ? undefined : readTableFlags({ schema: values.schema }).schema;
    const connections = readIntFlag(values.connections, '--connections', 4, 2, 32);
    const listenUrl = values['listen-url'];
    if (
      listenUrl !== undefined &&
      !(URL.canParse(listenUrl) && ['postgres:', 'postgresql:'].includes(new URL(listenUrl).protocol))
    ) {
      throw new CliUsageError('--listen-url', listenUrlNotPostgres());
    }
    const report = await runConformance({ url, schema, connections, listenUrl });
    return { data: report, text: formatConformanceReport(report), failed: !report.passed };
  },
};
