import { MssqlParameter } from 'typeorm';
import type { ParameterEncoders } from '../../parameter-encoders.interface.js';

/*
 * Typed parameters of the SQL Server statements. Left to inference, mssql declares a string as
 * nvarchar of its own length (one cached plan per distinct length), a number as int or float, a
 * Date as datetime, and an array or object as nvarchar of its `toString()` — `"a,b"`, silently.
 * Every value QueueBox sends is one of these, of a constant declared type and length.
 */

/** mssql's `MAX`: tedious declares a longer nvarchar than 4,000 characters as `nvarchar(max)`. */
const MAX = 65_535;
/** The key columns: `nvarchar(200)` (sources, destinations, ordering and idempotency keys). */
const KEY_LENGTH = 200;
/** `sp_getapplock` resource names: at most 255 characters. */
const RESOURCE_LENGTH = 255;

/** A row id (`bigint`), sent as its decimal text: ids may pass 2^53. */
export const idParam = (id: string): MssqlParameter => new MssqlParameter(id, 'bigint');
/** A claim token or message id (`uniqueidentifier`). */
export const guidParam = (value: string): MssqlParameter => new MssqlParameter(value, 'uniqueidentifier');
/** A key column value: source, destination, ordering or idempotency key (NULL allowed). */
export const keyParam = (value: string | null): MssqlParameter => new MssqlParameter(value, 'nvarchar', KEY_LENGTH);
/** Text of any length: headers and payload JSON, error text, JSON arrays. */
export const textParam = (value: string | null): MssqlParameter => new MssqlParameter(value, 'nvarchar', MAX);
/** A list, as one JSON array text read with OPENJSON (mssql would send an array as "a,b"). */
export const jsonParam = (values: readonly unknown[]): MssqlParameter => textParam(JSON.stringify(values));
/** A count, a batch size, a lease or a delay in milliseconds (`int`: DATEADD takes an int). */
export const intParam = (value: number): MssqlParameter => new MssqlParameter(value, 'int');
/** An age in milliseconds (`bigint`: retention ages reach 100 years). */
export const bigintParam = (value: number): MssqlParameter => new MssqlParameter(value, 'bigint');
/** A flag (`bit`). */
export const bitParam = (value: boolean): MssqlParameter => new MssqlParameter(value, 'bit');
/** An `sp_getapplock` resource name. */
export const resourceParam = (value: string): MssqlParameter => new MssqlParameter(value, 'nvarchar', RESOURCE_LENGTH);
/** An instant (`datetimeoffset(3)`): an absolute time, whatever the session's or the driver's time zone. */
export const instantParam = (value: Date | null): MssqlParameter => new MssqlParameter(value, 'datetimeoffset', 3);
/** A SQL identifier compared with a catalog name (`sysname`: nvarchar(128)). */
export const identifierParam = (value: string): MssqlParameter => new MssqlParameter(value, 'nvarchar', 128);

/** Every value as a typed parameter of constant length; every list as one JSON array text. */
export const mssqlEncoders: ParameterEncoders = {
  id: idParam,
  uuid: guidParam,
  key: keyParam,
  text: textParam,
  int: intParam,
  bigint: bigintParam,
  flag: bitParam,
  instant: instantParam,
  identifier: identifierParam,
  lockName: resourceParam,
  ids: jsonParam,
  uuids: jsonParam,
  keys: jsonParam,
  texts: jsonParam,
  ints: jsonParam,
};
