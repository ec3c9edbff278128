import type { DeadRowFilter } from '../../database/sql-dialect.interface.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import type { DeadLetterFilter, QueueBoxTable } from '../../shared/interfaces/admin.interface.js';
import {
  emptyTimeRange,
  filterNotForTable,
  filterTextHasNul,
  invalidFilterText,
  invalidInstant,
  invalidInteger,
  invalidRowId,
  invalidTable,
} from '../../shared/queuebox.messages.js';
import { parseIsoInstant } from '../../config/validation/iso-instant.js';
import { isQueueBoxTable, QUEUEBOX_TABLES, STREAM_FIELDS } from '../../shared/queuebox.claimers.js';

/*
 * Validation of what an operator passes to DeadLetterService or QueueBoxAdmin (or to the HTTP API
 * and the CLI, which pass it on): every bad value is an InvalidArgumentError naming its field, before any statement runs.
 */

const DIGITS = /^[0-9]{1,19}$/;
/** The largest id a bigint column holds; a larger one would fail in the database, not here. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;
/** Key columns are 200 characters; an error-text fragment gets the same bound. */
const MAX_TEXT = 200;

/** Rows an operator's page holds when no limit is asked for, and the most it may hold (dead letters, row states, claims at risk). */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1_000;

export function checkTable(value: unknown, field = 'table'): QueueBoxTable {
  if (!isQueueBoxTable(value)) throw new InvalidArgumentError(field, invalidTable(field));
  return value;
}

/** Digits of a value a bigint column can hold. */
const isRowId = (value: unknown): value is string =>
  typeof value === 'string' && DIGITS.test(value) && BigInt(value) <= MAX_BIGINT;

export function checkRowId(value: unknown, field: string): string {
  if (!isRowId(value)) throw new InvalidArgumentError(field, invalidRowId(field));
  return value;
}

export function checkRowIds(value: unknown, field = 'ids'): string[] {
  if (!Array.isArray(value) || !value.every(isRowId)) throw new InvalidArgumentError(field, invalidRowId(field, true));
  return value;
}

export function checkInteger(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new InvalidArgumentError(field, invalidInteger(field, min, max));
  return value;
}

function checkText(value: unknown, field: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEXT)
    throw new InvalidArgumentError(field, invalidFilterText(field, MAX_TEXT));
  // PostgreSQL refuses NUL in any text parameter: the whole statement would fail.
  if (value.includes('\0')) throw new InvalidArgumentError(field, filterTextHasNul(field));
  return value;
}

function checkInstant(value: unknown, field: string): Date | null {
  if (value === undefined) return null;
  const instant = value instanceof Date ? value : typeof value === 'string' ? parseIsoInstant(value) : undefined;
  if (!instant || Number.isNaN(instant.getTime())) throw new InvalidArgumentError(field, invalidInstant(field));
  return instant;
}

/** A dead-letter filter of `table`, validated: destination on the outbox, source on the inbox. */
export function checkFilter(table: QueueBoxTable, filter: DeadLetterFilter | undefined): DeadRowFilter {
  const given = filter ?? {};
  if (typeof given !== 'object') throw new InvalidArgumentError('filter', invalidFilterText('filter', MAX_TEXT));
  const own = QUEUEBOX_TABLES[table].stream;
  for (const other of STREAM_FIELDS) {
    if (other !== own && given[other] !== undefined)
      throw new InvalidArgumentError(other, filterNotForTable(other, table, own));
  }
  const deadSince = checkInstant(given.deadSince, 'deadSince');
  const deadBefore = checkInstant(given.deadBefore, 'deadBefore');
  if (deadSince && deadBefore && deadBefore.getTime() <= deadSince.getTime())
    throw new InvalidArgumentError('deadBefore', emptyTimeRange());
  return {
    stream: checkText(given[own], own),
    errorContains: checkText(given.errorContains, 'errorContains'),
    deadSince,
    deadBefore,
  };
}
