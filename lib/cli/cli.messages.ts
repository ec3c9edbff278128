/**
 * Message texts of the `queuebox` command line. Each says what to change; none echoes a
 * connection URL (it may hold a password).
 */

export const missingCommand = (names: readonly string[]): string => `a command is required: one of ${names.join(', ')}.`;

export const unknownCommand = (name: string, names: readonly string[]): string =>
  `unknown command ${JSON.stringify(name.slice(0, 40))}; it must be one of ${names.join(', ')}.`;

export const unknownFlag = (flag: string, command: string): string => `unknown flag ${flag} for "queuebox ${command}".`;

export const flagNeedsValue = (flag: string): string => `flag ${flag} needs a value (a value starting with "-" is written ${flag}=<value>).`;

export const flagTakesNoValue = (flag: string): string => `flag ${flag} takes no value.`;

export const unexpectedArgument = (argument: string, command: string): string =>
  `unexpected argument ${JSON.stringify(argument.slice(0, 40))} for "queuebox ${command}".`;

export const invalidFlag = (flag: string, description: string, allowed: string): string => `flag ${flag} is ${description}; it must be ${allowed}.`;

export const urlRequired = (): string => 'flag --url is required (or set QUEUEBOX_DATABASE_URL): a postgres:// or mssql:// connection URL.';

export const urlNotUrl = (): string => 'flag --url is not a URL (the value is not shown: it may hold a password); it must be a postgres:// or mssql:// connection URL.';

export const urlScheme = (scheme: string, known: readonly string[]): string =>
  `flag --url has the scheme "${scheme.slice(0, 20)}"; it must be ${known.map((name) => `${name}://`).join(', ').replace(/, ([^,]*)$/, ' or $1')}.`;

export const listenUrlNotPostgres = (): string =>
  'flag --listen-url is not a postgres:// URL (the value is not shown: it may hold a password); it must reach the database directly or through a pooler in session mode.';

export const urlNeedsDatabase = (): string => 'flag --url names no database; it must end with /<database> (mssql://user:password@host:1433/<database>).';

export const confirmationRequired = (command: string): string =>
  `"queuebox ${command}" changes rows: pass --yes to confirm (list them first with "queuebox dead list" and the same selection).`;

export const selectionRequired = (command: string): string =>
  `"queuebox ${command}" needs a selection: --ids, a filter (--destination, --source, --error, --since, --before), or --all for every dead row.`;

export const idsWithFilter = (): string => 'flag --ids cannot be combined with filters or --all: select rows by ids or by filter.';

export const filterForOtherTable = (flag: string, table: string): string =>
  `flag ${flag} does not apply to the ${table} (outbox rows have a --destination, inbox rows a --source).`;

export const missingTablesHint = (): string =>
  'QueueBox\'s tables are not in this database: run its migrations (createQueueBoxMigrations from "queuebox/migrations", or the DDL "queuebox schema" prints), or pass --schema (and --outbox-table, --inbox-table) with the names given to QueueBoxModule if they live elsewhere.';
