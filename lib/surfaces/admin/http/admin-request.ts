import { InvalidArgumentError } from '../../../shared/errors/invalid-argument.error.js';
import type {
  DeadLetterFilter,
  DeadLetterListQuery,
  DeadLetterSelection,
} from '../../../shared/interfaces/admin.interface.js';
import { invalidAdminBody, notABoolean, notAnInteger, unknownAdminField } from '../../../shared/queuebox.messages.js';

/*
 * Reads the query strings and JSON bodies of admin requests into the inputs of QueueBoxAdmin and
 * DeadLetterService. Only the shape is checked here (known fields, integers, booleans); values are
 * validated by those services, which name the field of any bad one. Unknown fields are refused: a misspelled
 * filter must not widen a replay to every dead row.
 */

export type QueryStrings = Record<string, unknown>;

const FILTER_FIELDS = ['destination', 'source', 'errorContains', 'deadSince', 'deadBefore'] as const;

/** Refuses fields outside `known`, naming the first one. */
export function onlyKnown(input: Record<string, unknown>, known: readonly string[], prefix = ''): void {
  for (const field of Object.keys(input))
    if (!known.includes(field))
      throw new InvalidArgumentError(`${prefix}${field}`, unknownAdminField(`${prefix}${field}`));
}

function text(query: QueryStrings, field: string): string | undefined {
  const value = query[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(field, unknownAdminField(field));
  return value;
}

export function integer(query: QueryStrings, field: string): number | undefined {
  const value = text(query, field);
  if (value === undefined) return undefined;
  if (!/^-?[0-9]{1,15}$/.test(value)) throw new InvalidArgumentError(field, notAnInteger(field));
  return Number(value);
}

export function flag(query: QueryStrings, field: string): boolean {
  const value = text(query, field);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidArgumentError(field, notABoolean(field));
}

/** A comma-separated list of row ids (`?ids=1,2,3`); the service validates each. */
export function idList(query: QueryStrings, field: string): string[] {
  const value = text(query, field);
  return value === undefined || value === '' ? [] : value.split(',');
}

/** `?limit=` (and `withinMs=`) of the reports. */
export function reportQuery(
  query: QueryStrings,
  fields: readonly ('limit' | 'withinMs')[],
): { limit?: number; withinMs?: number } {
  onlyKnown(query, fields);
  return Object.fromEntries(
    fields.map((field) => [field, integer(query, field)]).filter(([, value]) => value !== undefined),
  );
}

/** The query of a dead-letter page: the filter, `after` and `limit`. */
export function listQuery(query: QueryStrings): DeadLetterListQuery {
  onlyKnown(query, [...FILTER_FIELDS, 'after', 'limit']);
  const list: DeadLetterListQuery = { ...filterOf(query), after: text(query, 'after'), limit: integer(query, 'limit') };
  return Object.fromEntries(Object.entries(list).filter(([, value]) => value !== undefined));
}

function filterOf(input: Record<string, unknown>): DeadLetterFilter {
  const filter: Record<string, unknown> = {};
  for (const field of FILTER_FIELDS) if (input[field] !== undefined) filter[field] = input[field];
  return filter as DeadLetterFilter;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body of a replay or discard: `{ ids }` or `{ filter }`, and an optional `chunkSize`. */
export function batchBody(body: unknown): { selection: DeadLetterSelection; chunkSize?: number } {
  if (!isObject(body)) throw new InvalidArgumentError('body', invalidAdminBody());
  onlyKnown(body, ['ids', 'filter', 'chunkSize']);
  const chunkSize = body.chunkSize as number | undefined;
  if ((body.ids === undefined) === (body.filter === undefined))
    throw new InvalidArgumentError('selection', invalidAdminBody());
  if (body.ids !== undefined) return { selection: { ids: body.ids as string[] }, chunkSize };
  if (!isObject(body.filter)) throw new InvalidArgumentError('filter', invalidAdminBody());
  onlyKnown(body.filter, FILTER_FIELDS, 'filter.');
  return { selection: { filter: filterOf(body.filter) }, chunkSize };
}
