import type { ClaimComponent, QueueBoxTable } from '../shared/interfaces/claim.interface.js';
import type { ResolvedTableNames } from '../shared/interfaces/table-names.interface.js';
import type { ParameterEncoders } from './parameter-encoders.interface.js';
import type { DriverRow } from './statement-results.js';
import { CLAIM_COMPONENTS, QUEUEBOX_TABLE_NAMES } from '../shared/queuebox.claimers.js';

/*
 * How a statement is defined once for every database (statements.ts): the arguments that pick its
 * text, how its values bind, how its rows decode, whether it is hot, and its one-row form. The
 * port's statement methods (`StatementMethods`) and the texts each dialect supplies
 * (`StatementTexts`) are derived from the definitions; the catalog builds the methods at start-up.
 */

/**
 * One SQL statement (one request to the database) with its bound values and the decoder of its
 * rows. Values are never interpolated into `sql`.
 */
export interface SqlStatement<Result = unknown> {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** Set on the hot statements: run as a prepared statement of this name, where the driver can. */
  readonly name?: string;
  /** Turns the driver's rows into the statement's typed result (statement-results.ts). */
  readonly decode: Decoder<Result>;
}

/** Turns a statement's driver rows into its typed result (decode-rows.ts). */
export type Decoder<Result> = (rows: readonly DriverRow[]) => Result;

/** What a definition binds its arguments with, one per text: built once by the catalog. */
export interface BindContext<Variant> {
  readonly encode: ParameterEncoders;
  readonly tables: ResolvedTableNames;
  /** The dialect lets a statement commit its own transaction without waiting for its WAL flush (DialectProfile.asyncCommit). */
  readonly asyncCommit: boolean;
  /** The leading arguments that picked the text: the table, the claimer, or the table and the row state. */
  readonly variant: Variant;
}

/**
 * A second text of a statement, sent where the dialect has one and `when` holds of the first
 * argument after those that pick the text (the rows): the same parameters, the same rows back
 * (PostgreSQL's one-row completion).
 */
export interface OneRowForm<Name extends string> {
  /** Its key in the dialect's texts. */
  readonly text: Name;
  readonly when: (first: never) => boolean;
}

/** A statement's definition, as the helpers below build it; the catalog reads only its runtime fields. */
export interface StatementDefinition<Method = unknown, Text = unknown, OneRow extends string = string> {
  /** The values of each leading argument that picks the text: none (one text), the tables, the claimers, … */
  readonly axes: readonly (readonly string[])[];
  /** The bound values in placeholder order, each through the dialect's encoder for its kind. */
  readonly bind: (context: never, ...args: never) => unknown[];
  /** The decoder of the rows of the text picked by `variant`. */
  readonly decodeFor: (variant: never) => Decoder<unknown>;
  /** Claims, completions, group renewals: run as named prepared statements where the dialect prepares. */
  readonly hot: boolean;
  readonly oneRow?: OneRowForm<OneRow>;
  /** Types only, never set: the method the catalog builds, and the text function a dialect supplies. */
  readonly signature?: { readonly method: Method; readonly text: Text };
}

/**
 * The arguments of a method after those that pick the text. A method takes at most four
 * arguments in all: the catalog calls with fixed arity, so that a call allocates no argument list.
 */
type Rest3 = readonly [unknown?, unknown?, unknown?];
type Rest2 = readonly [unknown?, unknown?];

interface Spec<Variant, Args extends readonly unknown[], Result> {
  bind(context: BindContext<Variant>, ...args: Args): unknown[];
  decode: Decoder<Result>;
  hot?: boolean;
}

/** A statement with one text, whatever the table. */
export function once<Args extends readonly [unknown?, unknown?, unknown?, unknown?], Result>(
  spec: Spec<undefined, Args, Result>,
): StatementDefinition<(...args: Args) => SqlStatement<Result>, (t: ResolvedTableNames) => string, never> {
  return { axes: [], bind: spec.bind, decodeFor: () => spec.decode, hot: spec.hot ?? false };
}

/** A statement with a text per table: its first argument is the table. */
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

/**
 * A statement with a text per claimer: its first argument is the claimer, which also picks the
 * type of its rows. `oneRow`: its one-row form, under that key of the dialect's texts.
 */
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

/** The statement methods of the definitions `S`: what the port declares and the catalog builds. */
export type StatementMethods<S> = { readonly [K in keyof S]: MethodOf<S[K]> };

/**
 * The texts a dialect supplies for the definitions `S`: a text function per statement (of the
 * arguments that pick its text), and optionally one per one-row form.
 */
export type StatementTexts<S> = { readonly [K in keyof S]: TextOf<S[K]> } & {
  readonly [K in keyof S as OneRowOf<S[K]>]?: TextOf<S[K]>;
};
