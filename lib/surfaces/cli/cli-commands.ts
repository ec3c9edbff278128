import type { CliCommand } from './cli-command.interface.js';
import { deadCommand } from './commands/dead.command.js';
import { conformanceCommand } from './commands/conformance.command.js';
import { schemaCommand } from './commands/schema.command.js';
import { statusCommand } from './commands/status.command.js';

/**
 * The commands of `queuebox`, in the order `--help` lists them. A command is one file in
 * `commands/` and one line here.
 */
export const CLI_COMMANDS: readonly CliCommand[] = [schemaCommand, statusCommand, deadCommand, conformanceCommand];
