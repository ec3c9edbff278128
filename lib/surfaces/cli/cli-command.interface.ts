/** What a command sees besides its arguments. */
export interface CliContext {
  /** The environment (`QUEUEBOX_DATABASE_URL` stands in for `--url`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What a command produced: its data for `--json`, its text otherwise. */
export interface CliResult {
  data: unknown;
  text: string;
  /** The command ran and its result is a failure (a failing check): printed as usual, exit code 1. */
  failed?: boolean;
}

/**
 * One `queuebox <name>` command. A command parses its own arguments (`parseFlags`), throws
 * `CliUsageError` for a bad invocation and anything else for an operational failure; the runner
 * prints, masks secrets and picks the exit code. Register it with one line in `cli-commands.ts`.
 */
export interface CliCommand {
  readonly name: string;
  /** One line for `queuebox --help`. */
  readonly summary: string;
  /** The full `queuebox <name> --help` text. */
  readonly usage: string;
  run(args: readonly string[], context: CliContext): Promise<CliResult>;
}
