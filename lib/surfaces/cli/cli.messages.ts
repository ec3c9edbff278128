/**
 * Message texts of the `queuebox` command line. Each says what to change; none echoes a
 * connection URL (it may hold a password).
 */
import { type MigrationsExport, migrationsToAdd } from '../../shared/queuebox.messages.js';
import { nearestName } from '../../shared/nearest-name.js';

/** ` (did you mean …?)` when a known name is close to the one given (the options validator's rule). */
const didYouMean = (given: string, known: readonly string[], show: (name: string) => string): string => {
  const near = nearestName(given, known);
  return near === undefined ? '' : ` (did you mean ${show(near)}?)`;
};

export const missingCommand = (names: readonly string[]): string =>
  `a command is required: one of ${names.join(', ')}.`;

export const unknownCommand = (name: string, names: readonly string[]): string =>
  `unknown command ${JSON.stringify(name.slice(0, 40))}${didYouMean(name, names, (near) => `"${near}"`)}; it must be one of ${names.join(', ')}.`;

/** `known`: the command's flag names, without their dashes. */
export const unknownFlag = (flag: string, command: string, known: readonly string[]): string =>
  `unknown flag ${flag} for "queuebox ${command}"${didYouMean(flag.replace(/^-+/, ''), known, (near) => `--${near}`)}.`;

export const flagNeedsValue = (flag: string): string =>
  `flag ${flag} needs a value (a value starting with "-" is written ${flag}=<value>).`;

export const flagTakesNoValue = (flag: string): string => `flag ${flag} takes no value.`;

export const unexpectedArgument = (argument: string, command: string): string =>
  `unexpected argument ${JSON.stringify(argument.slice(0, 40))} for "queuebox ${command}".`;

export const invalidFlag = (flag: string, description: string, allowed: string): string =>
  `flag ${flag} is ${description}; it must be ${allowed}.`;

export const urlRequired = (): string =>
  'flag --url is required (or set QUEUEBOX_DATABASE_URL): a postgres:// or mssql:// connection URL.';

export const urlNotUrl = (): string =>
  'flag --url is not a URL (the value is not shown: it may hold a password); it must be a postgres:// or mssql:// connection URL.';

export const urlScheme = (scheme: string, known: readonly string[]): string =>
  `flag --url has the scheme "${scheme.slice(0, 20)}"; it must be ${known
    .map((name) => `${name}://`)
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1')}.`;

export const listenUrlNotPostgres = (): string =>
  'flag --listen-url is not a postgres:// URL (the value is not shown: it may hold a password); it must reach the database directly or through a pooler in session mode.';

export const urlNeedsDatabase = (): string =>
  'flag --url names no database; it must end with /<database> (mssql://user:password@host:1433/<database>).';

export const confirmationRequired = (command: string): string =>
  `"queuebox ${command}" changes rows: pass --yes to confirm (list them first with "queuebox dead list" and the same selection).`;

export const selectionRequired = (command: string): string =>
  `"queuebox ${command}" needs a selection: --ids, a filter (--destination, --source, --error, --since, --before), or --all for every dead row.`;

export const idsWithFilter = (): string =>
  'flag --ids cannot be combined with filters or --all: select rows by ids or by filter.';

export const filterForOtherTable = (flag: string, table: string): string =>
  `flag ${flag} does not apply to the ${table} (outbox rows have a --destination, inbox rows a --source).`;

/** QueueBox's start-up check failed (`MissingMigrationsError`): what it found, in the CLI's words (the hint says what to do). */
export const tablesNotReady = (problems: readonly string[], migrations: readonly string[]): string =>
  `QueueBox's tables are not ready: ${problems.join('; ')} (the migration${migrations.length === 1 ? '' : 's'} ${migrations.join(', ')} ${migrations.length === 1 ? 'has' : 'have'} not run).`;

/** `database`: the database whose driver said a table is missing. */
export const missingTablesHint = (database: MigrationsExport): string =>
  `QueueBox's tables are not in this database: run its migrations (add ${migrationsToAdd(database)} to the DataSource's "migrations", or run the DDL "queuebox schema --dialect ${database.type}" prints), or pass --schema (and --outbox-table, --inbox-table) with the names given to QueueBoxModule if they live elsewhere.`;
