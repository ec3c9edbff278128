import { CliUsageError } from '../../shared/errors/cli-usage.error.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';

/** The argument names of `QueueBoxAdmin` and `DeadLetterService`, as the CLI's flags. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  destination: '--destination',
  source: '--source',
  errorContains: '--error',
  deadSince: '--since',
  deadBefore: '--before',
  after: '--after',
  limit: '--limit',
  ids: '--ids',
  chunkSize: '--chunk-size',
  withinMs: '--within',
};

/**
 * Runs an admin or dead-letter call; an `InvalidArgumentError` it throws is a usage error of the flag that gave
 * the argument (exit code 2), anything else stays an operational failure.
 */
export async function asFlagErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidArgumentError && FLAG_OF_FIELD[error.field])
      throw new CliUsageError(FLAG_OF_FIELD[error.field], error.message);
    throw error;
  }
}
