import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from '../../shared/errors/cli-usage.error.js';
import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { resolveOptions } from '../../config/options/resolve-options.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { describeValue } from '../../shared/queuebox.messages.js';
import { parseIsoInstant } from '../../config/validation/iso-instant.js';
import { flagNeedsValue, flagTakesNoValue, invalidFlag, unexpectedArgument, unknownFlag } from './cli.messages.js';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/** The largest row id (bigint). */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** Every command: machine-readable output. */
export const OUTPUT_FLAGS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies FlagSpec;

/** The schema and table names, as given to `QueueBoxModule.forRoot` (they must match the application's). */
export const TABLE_FLAGS = {
  schema: { type: 'string' },
  'outbox-table': { type: 'string' },
  'inbox-table': { type: 'string' },
} as const satisfies FlagSpec;

/** The commands that connect: the URL (or `QUEUEBOX_DATABASE_URL`). */
export const CONNECTION_FLAGS = { url: { type: 'string' }, ...TABLE_FLAGS } as const satisfies FlagSpec;

/** Flags parsed by `node:util`'s `parseArgs`; its errors become `CliUsageError`s naming the flag. */
export function parseFlags<const T extends FlagSpec>(
  command: string,
  args: readonly string[],
  options: T,
  positionals = 0,
): {
  values: ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>>['values'];
  positionals: string[];
} {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw usageErrorOf(error, command, Object.keys(options));
  }
  if (parsed.positionals.length > positionals) {
    const extra = parsed.positionals[positionals];
    throw new CliUsageError(extra, unexpectedArgument(extra, command));
  }
  return parsed as never;
}

/** Turns a `parseArgs` error into a typed one: the flag it is about is quoted in its message. `flags`: the command's. */
function usageErrorOf(error: unknown, command: string, flags: readonly string[]): CliUsageError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : '';
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? '(arguments)';
  const name = flag.split(/[ =]/)[0];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new CliUsageError(name, unknownFlag(name, command, flags));
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new CliUsageError(
      name,
      message.includes('does not take an argument') ? flagTakesNoValue(name) : flagNeedsValue(name),
    );
  }
  return new CliUsageError(name, `invalid arguments for "queuebox ${command}": ${message.split('\n')[0]}`);
}

/** A flag given once; `parseArgs` keeps the last of repeated ones, which would hide a typo. */
export function readEnumFlag<T extends string>(
  value: string | undefined,
  flag: string,
  fallback: T,
  allowed: readonly T[],
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw new CliUsageError(flag, invalidFlag(flag, describeValue(value), `one of ${allowed.join(', ')}`));
  return value as T;
}

/** A whole number within [min, max]. */
export function readIntFlag(
  value: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max))
    throw new CliUsageError(flag, invalidFlag(flag, describeValue(value), `a whole number from ${min} to ${max}`));
  return number;
}

/**
 * Row ids: positive whole numbers, separated by commas or spaces. An empty entry (`1,,2`, a
 * leading or trailing comma) is refused: it is most likely an id lost in a shell variable.
 */
export function readIdsFlag(value: string | undefined, flag: string, max: number): string[] | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const ids = trimmed === '' ? [] : trimmed.split(/\s*,\s*|\s+/);
  const allowed = `row ids (whole numbers up to ${MAX_BIGINT}) separated by commas, 1 to ${max} of them`;
  if (ids.length === 0 || ids.length > max)
    throw new CliUsageError(flag, invalidFlag(flag, `a list of ${ids.length} ids`, allowed));
  for (const id of ids) {
    // A bigint column holds no larger id: the database would refuse the statement instead.
    if (!/^[1-9]\d{0,18}$/.test(id) || BigInt(id) > MAX_BIGINT)
      throw new CliUsageError(flag, invalidFlag(flag, `a list holding ${describeValue(id)}`, allowed));
  }
  return ids;
}

/** An ISO 8601 instant with its time zone (`2026-01-31T12:00:00Z`): a zone-less time would be read in the machine's. */
export function readInstantFlag(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const instant = parseIsoInstant(value);
  if (!instant) {
    throw new CliUsageError(
      flag,
      invalidFlag(flag, describeValue(value), 'an ISO 8601 instant with a time zone, such as 2026-01-31T12:00:00Z'),
    );
  }
  return instant;
}

/** Free text (a name, an error fragment) of bounded length, without NUL (PostgreSQL refuses it in text). */
export function readTextFlag(value: string | undefined, flag: string, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  const allowed = `a text of 1 to ${maxLength} characters without NUL`;
  if (value.length === 0 || value.length > maxLength)
    throw new CliUsageError(flag, invalidFlag(flag, describeValue(value), allowed));
  if (value.includes('\0')) throw new CliUsageError(flag, invalidFlag(flag, 'a text holding a NUL character', allowed));
  return value;
}

const OPTION_FLAGS: Readonly<Record<string, string>> = {
  schema: '--schema',
  'tables.outbox': '--outbox-table',
  'tables.inbox': '--inbox-table',
};

/** The table names, validated as `QueueBoxModule` validates them; a bad one names its flag. */
export function readTableFlags(values: {
  schema?: string;
  'outbox-table'?: string;
  'inbox-table'?: string;
}): ResolvedTableNames {
  try {
    return resolveOptions({
      schema: values.schema,
      tables: { outbox: values['outbox-table'], inbox: values['inbox-table'] },
    }).tables;
  } catch (error) {
    if (!(error instanceof InvalidQueueBoxOptionsError)) throw error;
    const flag = OPTION_FLAGS[error.path] ?? error.path;
    throw new CliUsageError(flag, error.message.replace(`QueueBox option "${error.path}"`, `flag ${flag}`));
  }
}
