import { createHash } from 'node:crypto';
import type { ParameterEncoders } from '../parameter-encoders.interface.js';
import type {
  BindContext,
  Decoder,
  SqlStatement,
  StatementDefinition,
  StatementMethods,
  StatementTexts,
} from '../statement-definition.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';

/*
 * The statement methods of the definitions (statements.ts) for one dialect and one table
 * configuration, built once at start-up: every text of every statement, its decoder, its prepared
 * name and its binding context. A call then reads its text by the arguments that pick it (a
 * property read), binds its values, and allocates only its parameters and the statement.
 */

/** Whether the hot statements run named: the catalog turns it off for good when the connections stop keeping prepared statements. */
export interface Preparing {
  prepared: boolean;
}

/** What the methods are built with: the dialect's texts, encoders and capabilities, and the tables. */
export interface MethodSetting<S> {
  texts: StatementTexts<S>;
  encode: ParameterEncoders;
  tables: ResolvedTableNames;
  asyncCommit: boolean;
  preparing: Preparing;
}

/** The name of a hot statement's prepared form: after its text, so that every connection plans it once, and every replica alike. */
export const preparedName = (sql: string): string =>
  `queuebox_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;

/** One built text: its SQL, its prepared name (hot statements only), and the decoder of its rows. */
interface Form {
  readonly sql: string;
  readonly name: string | undefined;
  readonly decode: Decoder<unknown>;
}

/** The texts picked by one set of leading arguments: the statement's, its one-row form's where the dialect has one. */
interface Variant {
  readonly context: BindContext<unknown>;
  readonly many: Form;
  readonly one: Form | undefined;
}

// The definitions' functions as the builder calls them: with fixed arity, so that a call allocates no argument list.
type Bind = (context: BindContext<unknown>, a?: unknown, b?: unknown, c?: unknown, d?: unknown) => unknown[];
type When = (first: unknown) => boolean;
type Text = (t: ResolvedTableNames, ...selectors: unknown[]) => string;
type Method = (...args: unknown[]) => SqlStatement;

/**
 * A base class whose instances carry `methods` as their own properties: how the catalog has the
 * statement methods it builds in its constructor, typed, without declaring each.
 */
export function withOwnMethods<Methods extends object>(): new (methods: Methods) => Methods {
  return class {
    constructor(methods: Methods) {
      Object.assign(this, methods);
    }
  } as new (methods: Methods) => Methods;
}

/** The statement methods of `definitions`, each built once from the setting's texts. */
export function statementMethods<S extends Record<string, StatementDefinition>>(
  definitions: S,
  setting: MethodSetting<S>,
): StatementMethods<S> {
  const texts = setting.texts as unknown as Readonly<Record<string, Text | undefined>>;
  const methods: Record<string, Method> = {};
  for (const [key, definition] of Object.entries(definitions)) {
    const form = (text: Text, selectors: readonly unknown[], decode: Decoder<unknown>): Form => {
      const sql = text(setting.tables, ...selectors);
      // Named only where they can ever run named: `prepared` is never turned back on.
      return { sql, name: definition.hot && setting.preparing.prepared ? preparedName(sql) : undefined, decode };
    };
    const variant = (selectors: readonly unknown[], picked: unknown): Variant => {
      const decode = (definition.decodeFor as (variant: unknown) => Decoder<unknown>)(picked);
      const oneRowText = definition.oneRow && texts[definition.oneRow.text];
      return {
        context: { encode: setting.encode, tables: setting.tables, asyncCommit: setting.asyncCommit, variant: picked },
        many: form(texts[key]!, selectors, decode),
        one: oneRowText ? form(oneRowText, selectors, decode) : undefined,
      };
    };
    methods[key] = method(definition, variant, setting.preparing);
  }
  return methods as unknown as StatementMethods<S>;
}

/** The method of one definition over its built variants: the leading arguments pick the variant, the rest are bound. */
function method(
  definition: StatementDefinition,
  variant: (selectors: readonly unknown[], picked: unknown) => Variant,
  preparing: Preparing,
): Method {
  const bind = definition.bind as unknown as Bind;
  const when = definition.oneRow?.when as When | undefined;
  const statement = (v: Variant, params: unknown[], first: unknown): SqlStatement => {
    const form = v.one !== undefined && when!(first) ? v.one : v.many;
    return preparing.prepared && form.name !== undefined
      ? { sql: form.sql, params, name: form.name, decode: form.decode }
      : { sql: form.sql, params, decode: form.decode };
  };
  const [first, second] = definition.axes;
  if (first === undefined) {
    const v = variant([], undefined);
    return (a, b, c, d) => statement(v, bind(v.context, a, b, c, d), a);
  }
  if (second === undefined) {
    const byFirst = Object.fromEntries(first.map((x) => [x, variant([x], x)]));
    return (x, a, b, c) => {
      const v = byFirst[x as string];
      return statement(v, bind(v.context, a, b, c), a);
    };
  }
  const byBoth = Object.fromEntries(
    first.map((x) => [x, Object.fromEntries(second.map((y) => [y, variant([x, y], [x, y])]))]),
  );
  return (x, y, a, b) => {
    const v = byBoth[x as string][y as string];
    return statement(v, bind(v.context, a, b), a);
  };
}
