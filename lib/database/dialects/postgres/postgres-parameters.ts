import type { ParameterEncoders } from '../../parameter-encoders.interface.js';

const value = <Value>(given: Value): Value => given;
const list = <Value>(values: readonly Value[]): Value[] => [...values];

/**
 * node-postgres binds each value as it is, and a list as an array (read with `unnest` or
 * `= ANY`). PostgreSQL infers each parameter's type from the statement, which casts it where the
 * type matters (`$1::bigint`, `$2::uuid[]`): nothing here declares one.
 */
export const postgresEncoders: ParameterEncoders = {
  id: value,
  uuid: value,
  key: value,
  text: value,
  int: value,
  bigint: value,
  flag: value,
  instant: value,
  identifier: value,
  lockName: value,
  ids: list,
  uuids: list,
  keys: list,
  texts: list,
  ints: list,
};
