import type { ClaimComponent, QueueBoxTable } from '../shared/interfaces/claim.interface.js';
import type { ResolvedTableNames } from '../shared/interfaces/table-names.interface.js';
import type { ParameterEncoders } from './parameter-encoders.interface.js';
import type { DriverRow } from './statement-results.js';
import { CLAIM_COMPONENTS, QUEUEBOX_TABLE_NAMES } from '../shared/queuebox.claimers.js';

/*
 * How a statement is defined once for every database (statements.ts); the port's methods and the
 * dialects' texts are derived from the definitions.
 */

/** One request to the database: its text, bound values (never interpolated) and row decoder. */
export interface SqlStatement<Result = unknown> {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** Set on the hot statements: run as a prepared statement of this name, where the driver can. */
  readonly name?: string;
  readonly decode: Decoder<Result>;
}

export type Decoder<Result> = (rows: readonly DriverRow[]) => Result;

export interface BindContext<Variant> {
  readonly encode: ParameterEncoders;
  readonly tables: ResolvedTableNames;
  /** The dialect lets a statement commit its own transaction without waiting for its WAL flush (DialectProfile.asyncCommit). */
  readonly asyncCommit: boolean;
  /** The leading arguments that picked the text: the table, the claimer, or the table and the row state. */
  readonly variant: Variant;
}

/** A second text (PostgreSQL's one-row completion), used where `when` holds of the rows argument. */
export interface OneRowForm<Name extends string> {
  readonly text: Name;
  readonly when: (first: never) => boolean;
}

/** A statement's definition, as the helpers below build it; the catalog reads only its runtime fields. */
export interface StatementDefinition<Method = unknown, Text = unknown, OneRow extends string = string> {
  /** The values of each leading argument that picks the text: none (one text), the tables, the claimers, … */
  readonly axes: readonly (readonly string[])[];
  readonly bind: (context: never, ...args: never) => unknown[];
  readonly decodeFor: (variant: never) => Decoder<unknown>;
  /** Claims, completions, group renewals: run as named prepared statements where the dialect prepares. */
  readonly hot: boolean;
  readonly oneRow?: OneRowForm<OneRow>;
  /** Types only, never set: the method the catalog builds, and the text function a dialect supplies. */
  readonly signature?: { readonly method: Method; readonly text: Text };
}

/** At most four arguments in all: the catalog calls with fixed arity, so a call allocates no argument list. */
type Rest3 = readonly [unknown?, unknown?, unknown?];
type Rest2 = readonly [unknown?, unknown?];

interface Spec<Variant, Args extends readonly unknown[], Result> {
  bind(context: BindContext<Variant>, ...args: Args): unknown[];
  decode: Decoder<Result>;
  hot?: boolean;
}

export function once<Args extends readonly [unknown?, unknown?, unknown?, unknown?], Result>(
  spec: Spec<undefined, Args, Result>,
): StatementDefinition<(...args: Args) => SqlStatement<Result>, (t: ResolvedTableNames) => string, never> {
  return { axes: [], bind: spec.bind, decodeFor: () => spec.decode, hot: spec.hot ?? false };
}

export function perTable<Args extends Rest3, Result>(
  spec: Omit<Spec<QueueBoxTable, Args, Result>, 'decode'> &
    ({ decode: Decoder<Result> } | { decodeBy: Record<QueueBoxTable, Decoder<Result>> }),
): StatementDefinition<
  (table: QueueBoxTable, ...args: Args) => SqlStatement<Result>,
  (t: ResolvedTableNames, table: QueueBoxTable) => string,
  never
> {
  const decodeFor = 'decode' in spec ? () => spec.decode : (table: QueueBoxTable) => spec.decodeBy[table];
  return { axes: [QUEUEBOX_TABLE_NAMES], bind: spec.bind, decodeFor, hot: spec.hot ?? false };
}

/** A statement with a text per table and per row state it is about, of `states` (the purge's): the table, then the state, come first. */
export function perTableAndState<State extends string, Args extends Rest2, Result>(
  states: readonly State[],
  spec: Spec<readonly [QueueBoxTable, State], Args, Result>,
): StatementDefinition<
  (table: QueueBoxTable, state: State, ...args: Args) => SqlStatement<Result>,
  (t: ResolvedTableNames, table: QueueBoxTable, state: State) => string,
  never
> {
  return {
    axes: [QUEUEBOX_TABLE_NAMES, states],
    bind: spec.bind,
    decodeFor: () => spec.decode,
    hot: spec.hot ?? false,
  };
}

/** A statement with a text per claimer (which also picks its row type); `oneRow`: its one-row form's key. */
export function perClaimer<
  Args extends Rest3,
  Results extends Record<ClaimComponent, unknown>,
  OneRow extends string = never,
>(spec: {
  bind(context: BindContext<ClaimComponent>, ...args: Args): unknown[];
  decodeBy: { [Kind in keyof Results]: Decoder<Results[Kind]> };
  hot?: boolean;
  oneRow?: { text: OneRow; when: (first: NoInfer<Args>[0]) => boolean };
}): StatementDefinition<
  <Kind extends ClaimComponent>(kind: Kind, ...args: Args) => SqlStatement<Results[Kind]>,
  (t: ResolvedTableNames, kind: ClaimComponent) => string,
  OneRow
> {
  return {
    axes: [CLAIM_COMPONENTS],
    bind: spec.bind,
    decodeFor: (kind: ClaimComponent) => spec.decodeBy[kind],
    hot: spec.hot ?? false,
    oneRow: spec.oneRow,
  };
}

type MethodOf<D> = D extends StatementDefinition<infer Method, unknown, string> ? Method : never;
type TextOf<D> = D extends StatementDefinition<unknown, infer Text, string> ? Text : never;
type OneRowOf<D> = D extends StatementDefinition<unknown, unknown, infer OneRow> ? OneRow : never;

export type StatementMethods<S> = { readonly [K in keyof S]: MethodOf<S[K]> };

/** The texts a dialect supplies for `S`: a text function per statement, optionally one per one-row form. */
export type StatementTexts<S> = { readonly [K in keyof S]: TextOf<S[K]> } & {
  readonly [K in keyof S as OneRowOf<S[K]>]?: TextOf<S[K]>;
};
