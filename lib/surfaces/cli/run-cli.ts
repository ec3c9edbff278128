import type { DialectProfile } from '../../database/dialects/dialect-profile.interface.js';
import { dialectOfType, dialectProfiles } from '../../database/dialects/dialect-registry.js';
import { CliUsageError } from '../../shared/errors/cli-usage.error.js';
import { MissingMigrationsError } from '../../shared/errors/missing-migrations.error.js';
import { QueueBoxError } from '../../shared/errors/queuebox.error.js';
import { errorText } from '../../shared/errors/error-text.js';
import type { CliCommand, CliContext } from './cli-command.interface.js';
import { CLI_COMMANDS } from './cli-commands.js';
import { missingCommand, missingTablesHint, tablesNotReady, unknownCommand } from './cli.messages.js';
import { DATABASE_URL_VARIABLE, secretsOf } from './connection-url.js';
import { terminalJson, terminalText } from './terminal-text.js';

/**
 * Exit codes of `queuebox`: 0 done; 1 an operational failure (the database unreachable, a
 * statement failed, tables missing); 2 a usage error (unknown command or flag, bad value).
 */
export const EXIT_CODES = { ok: 0, failure: 1, usage: 2 } as const;

/** Where the CLI writes; a parameter so that tests read what it printed. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Runs one invocation (`argv` without `node` and the script) and returns its exit code. Output
 * goes to `io.stdout`; errors to `io.stderr`, as `{"error": {code, flag?, message}}` with
 * `--json`. Every password of a URL given in the arguments or the environment is replaced by
 * `***` in anything printed, a driver's error message included; control characters (from the
 * database: a last error, a key) are printed as escapes, never sent raw to the terminal.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  env: CliContext['env'] = {},
  commands: readonly CliCommand[] = CLI_COMMANDS,
): Promise<number> {
  const json = argv.includes('--json');
  const secrets = secretsOf([...argv, env[DATABASE_URL_VARIABLE]]);
  const scrub = (text: string): string => secrets.reduce((masked, secret) => masked.split(secret).join('***'), text);
  const [name, ...args] = argv;
  try {
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(generalUsage(commands));
      return EXIT_CODES.ok;
    }
    const names = commands.map((command) => command.name);
    if (name === undefined || name.startsWith('-')) throw new CliUsageError('<command>', missingCommand(names));
    const command = commands.find((candidate) => candidate.name === name);
    if (!command) throw new CliUsageError('<command>', unknownCommand(name, names));
    if (args.includes('--help') || args.includes('-h')) {
      io.stdout(command.usage);
      return EXIT_CODES.ok;
    }
    const result = await command.run(args, { env });
    io.stdout(json ? scrub(terminalJson(result.data, 2)) : terminalText(scrub(result.text)));
    return result.failed ? EXIT_CODES.failure : EXIT_CODES.ok;
  } catch (error) {
    const usage = error instanceof CliUsageError;
    // A QueueBox error's message is written for users; anything else (a driver's) gets its class and code.
    // The start-up check's is written for an application's configuration: the CLI says it in its own terms.
    const notReady = error instanceof MissingMigrationsError;
    const message = scrub(
      notReady
        ? tablesNotReady(error.problems, error.migrations)
        : error instanceof QueueBoxError
          ? error.message
          : errorText(error),
    );
    const missing = notReady ? dialectOfType(error.databaseType) : missingTableDatabase(error);
    const hint = missing
      ? missingTablesHint({ type: missing.name, defaultMigrations: missing.schema.defaultMigrations })
      : undefined;
    if (json) {
      const code = error instanceof QueueBoxError ? error.code : 'FAILED';
      io.stderr(
        terminalJson({ error: { code, ...(usage ? { flag: error.flag } : {}), message, ...(hint ? { hint } : {}) } }),
      );
    } else {
      const help = commands.some((command) => command.name === name) ? `queuebox ${name} --help` : 'queuebox --help';
      io.stderr(
        `queuebox: ${terminalText(message)}${usage ? `\nRun "${help}" for the usage.` : ''}${hint ? `\nhint: ${hint}` : ''}`,
      );
    }
    return usage ? EXIT_CODES.usage : EXIT_CODES.failure;
  }
}

/**
 * The database whose driver says a statement failed for want of a table (PostgreSQL's
 * undefined_table, SQL Server's "Invalid object name"), from the error itself or the driver's
 * error TypeORM's QueryFailedError keeps as `driverError`; undefined for any other failure.
 */
function missingTableDatabase(error: unknown): DialectProfile | undefined {
  const errors = [error, (error as { driverError?: unknown } | null)?.driverError];
  return dialectProfiles.find((profile) =>
    errors.some((candidate) => profile.classifyError(candidate) === 'missing-table'),
  );
}

function generalUsage(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Usage: queuebox <command> [flags]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    `Connection: --url postgres://… or mssql://… (or ${DATABASE_URL_VARIABLE}); the scheme picks the database.`,
    'Every command takes --json and --help. Exit codes: 0 done, 1 operational failure, 2 usage error.',
  ].join('\n');
}
