/** Identifiers of the chaos schema: validated, then double-quoted (never interpolated raw). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function quoteIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`chaos: invalid SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** The tables of one run, schema-qualified and quoted. QueueBox's own tables keep their default names. */
export interface ChaosTables {
  schema: string;
  outbox: string;
  inbox: string;
  attempts: string;
  orders: string;
  fed: string;
  deliveries: string;
  effects: string;
  effectSeq: string;
  audit: string;
}

export function chaosTables(schema: string): ChaosTables {
  const s = quoteIdentifier(schema);
  const q = (name: string): string => `${s}.${quoteIdentifier(name)}`;
  return {
    schema: s,
    outbox: q('queuebox_outbox_messages'),
    inbox: q('queuebox_inbox_messages'),
    attempts: q('chaos_attempts'),
    orders: q('chaos_orders'),
    fed: q('chaos_fed'),
    deliveries: q('chaos_deliveries'),
    effects: q('chaos_effects'),
    effectSeq: q('chaos_effect_seq'),
    audit: q('chaos_audit'),
  };
}
