import type { CliCommand } from './cli-command.interface.js';
import { conformanceCommand } from './commands/conformance.command.js';
import { schemaCommand } from './commands/schema.command.js';

/**
 * The commands of `queuebox`, in the order `--help` lists them. A command is one file in
 * `commands/` and one line here.
 */
export const CLI_COMMANDS: readonly CliCommand[] = [
  schemaCommand,
  conformanceCommand,
];
