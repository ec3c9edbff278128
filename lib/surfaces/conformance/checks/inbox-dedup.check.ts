import type { ConformanceCheckDefinition } from '../conformance-check.js';
import { expectThat } from '../conformance-failure.js';
import { settleAll } from '../../../engine/settle-all.js';

/**
 * Concurrent inserts of one (source, idempotency key) on several connections store one row; the
 * same idempotency key from another source, or in another letter case, is another message.
 */
export const inboxDedupCheck: ConformanceCheckDefinition = {
  name: 'inbox-dedup',
  title: 'the inbox stores one row per (source, idempotency key), under concurrent inserts',
  async run(context) {
    const row = (source: string, idempotencyKey: string) =>
      context.dialect.insertInbox({ source, idempotencyKey, key: null, headers: '{}', payload: '{}' });
    const results = await settleAll(
      Array.from({ length: context.connections }, () => context.runner.run(row('conformance-dedup', 'evt-1'))),
    );
    const stored = results.filter((id): id is string => id !== undefined);
    expectThat(
      stored.length === 1,
      `${context.connections} concurrent inserts of (conformance-dedup, evt-1) stored ${stored.length} rows (ids ${stored.join(', ') || 'none'})`,
    );
    const found = await context.runner.run(context.dialect.findInbox('conformance-dedup', 'evt-1'));
    expectThat(
      found === stored[0],
      `the lookup of (conformance-dedup, evt-1) found row ${String(found)}, not ${stored[0]}`,
    );
    const again = await context.runner.run(row('conformance-dedup', 'evt-1'));
    expectThat(again === undefined, `a later insert of (conformance-dedup, evt-1) stored row ${String(again)}`);
    const otherSource = await context.runner.run(row('conformance-dedup-2', 'evt-1'));
    const otherCase = await context.runner.run(row('conformance-dedup', 'EVT-1'));
    expectThat(otherSource !== undefined, 'the same idempotency key from another source was taken for a duplicate');
    expectThat(
      otherCase !== undefined,
      'idempotency keys differing in letter case only were taken for one (the key columns must compare binary)',
    );
    return `${context.connections} concurrent inserts of one (source, idempotency key) on ${context.connections} connections: 1 row stored (${stored[0]}), ${context.connections - 1} reported duplicates; a later insert was a duplicate; another source (row ${otherSource}) and another letter case (row ${otherCase}) were new messages`;
  },
};
