import { QueueBoxError } from './queuebox.error.js';

/**
 * Thrown by the `queuebox` command line for a bad invocation: an unknown command or flag, a
 * missing or invalid value. `flag` names it (`--url`, `--limit`, or the command word); the
 * message says what is allowed and never echoes a connection URL. The CLI exits with code 2.
 * @publicApi
 */
export class CliUsageError extends QueueBoxError {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super('CLI_USAGE', message);
  }
}
