import type { DatabaseErrorKind } from '../../statement-results.js';

/** SQL Server error numbers the claim mechanism tells apart (TypeORM's QueryFailedError copies `number`). */
const BY_NUMBER: Readonly<Record<number, DatabaseErrorKind>> = {
  // Transaction (Process ID) was deadlocked … and has been chosen as the deadlock victim.
  1205: 'deadlock',
  // Lock request time out period exceeded (a LOCK_TIMEOUT).
  1222: 'lock-not-granted',
  // Invalid object name …
  208: 'missing-table',
};

/** Driver codes of a connection that closed, was reset or could not be made. */
const CONNECTION_CODES = new Set(['ESOCKET', 'ECONNCLOSED', 'ECONNRESET', 'ECONNREFUSED']);

/**
 * What a SQL Server error means to the claim mechanism. A claim lock not granted is not an error
 * here (the lock statement returns `sp_getapplock`'s code and the claim is skipped); a request
 * the driver cancelled after `requestTimeout` is `ETIMEOUT` on the error (tedious) or its cause.
 */
export function classifyMssqlError(error: unknown): DatabaseErrorKind | undefined {
  const fields = error as {
    number?: unknown;
    code?: unknown;
    driverError?: { code?: unknown; number?: unknown };
  } | null;
  const number = fields?.number ?? fields?.driverError?.number;
  if (typeof number === 'number' && BY_NUMBER[number]) return BY_NUMBER[number];
  const code = fields?.code ?? fields?.driverError?.code;
  if (code === 'ETIMEOUT') return 'timeout';
  // The socket closed or was refused (tedious's ESOCKET, ECONNCLOSED; mssql's pool ECONNRESET).
  return typeof code === 'string' && CONNECTION_CODES.has(code) ? 'connection-lost' : undefined;
}
