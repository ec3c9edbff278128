import { dialectNames } from '../../../database/dialects/dialect-registry.js';
import { schemaScript } from '../../../database/dialects/schema-script.js';
import { migrationName } from '../../../database/dialects/schema-steps.js';
import type { CliCommand } from '../cli-command.interface.js';
import { OUTPUT_FLAGS, TABLE_FLAGS, parseFlags, readEnumFlag, readTableFlags } from '../cli-flags.js';

const FLAGS = { dialect: { type: 'string' }, ...TABLE_FLAGS, ...OUTPUT_FLAGS } as const;

/**
 * `queuebox schema`: the DDL of QueueBox's tables for a DBA, the very statements of the
 * migrations. Offline: it needs no connection.
 */
export const schemaCommand: CliCommand = {
  name: 'schema',
  summary: "print the DDL of QueueBox's tables (PostgreSQL or SQL Server) for a DBA",
  usage: `Usage: queuebox schema [--dialect postgres|mssql] [--schema <name>] [--outbox-table <name>] [--inbox-table <name>] [--json]

Prints the statements of QueueBox's migrations, in order, as a script for psql or sqlcmd.
No connection is made.

  --dialect        postgres (default) or mssql
  --schema         the schema of the tables (as QueueBoxModule's "schema"; created if missing)
  --outbox-table   the outbox table name (default queuebox_outbox_messages)
  --inbox-table    the inbox table name (default queuebox_inbox_messages)
  --json           {dialect, tables, migrations: [{name, version, statements}]} instead of the script`,
  async run(args) {
    const { values } = parseFlags('schema', args, FLAGS);
    const dialect = readEnumFlag(values.dialect, '--dialect', 'postgres', dialectNames);
    const tables = readTableFlags(values);
    const script = schemaScript(dialect, tables, (step) => migrationName(step, tables));
    return { data: { dialect, tables, migrations: script.migrations }, text: script.text.trimEnd() };
  },
};
