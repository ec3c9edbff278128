/**
 * How a dialect binds each kind of value the statements take. The statement definitions
 * (statements.ts) say which kind each parameter is; the dialect says what the driver is given
 * (PostgreSQL: the value itself, lists as arrays; SQL Server: typed parameters of constant length,
 * lists as one JSON text).
 */
export interface ParameterEncoders {
  /** A row id (bigint), as its decimal text: ids may pass 2^53. */
  id(value: string): unknown;
  /** A claim token or a message id (a UUID). */
  uuid(value: string): unknown;
  /** A key column value: source, destination, ordering or idempotency key (NULL allowed). */
  key(value: string | null): unknown;
  /** Text of any length: headers and payload JSON, error text. */
  text(value: string | null): unknown;
  /** A count, a batch size, or an interval in milliseconds (at most `limits.intervalMs`). */
  int(value: number): unknown;
  /** An age in milliseconds, beyond an int (retention: up to `limits.ageMs`). */
  bigint(value: number): unknown;
  flag(value: boolean): unknown;
  /** An absolute instant, whatever the session's or the driver's time zone. */
  instant(value: Date | null): unknown;
  /** A SQL identifier compared with a catalog name (never interpolated). */
  identifier(value: string): unknown;
  /** The name of a claim lock (at most `claimLock.maxNameLength`). */
  lockName(value: string): unknown;
  ids(values: readonly string[]): unknown;
  uuids(values: readonly string[]): unknown;
  keys(values: readonly (string | null)[]): unknown;
  texts(values: readonly string[]): unknown;
  ints(values: readonly number[]): unknown;
}
