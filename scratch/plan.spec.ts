import { DataSource } from 'typeorm';
import { it } from 'vitest';
import { WalkCursor } from '../lib/claims/walk-cursor.js';
import { PostgresDialect } from '../lib/dialects/postgres/postgres.dialect.js';
import { resolveOptions } from '../lib/options/resolve-options.js';
import { createQueueBoxSchema } from '../tools/queuebox-schema.js';

it('planning', async () => {
  const url = 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `qb_scratch_${Date.now()}`;
  await createQueueBoxSchema(url, schema, 'm');
  const ds = await new DataSource({ type: 'postgres', url, schema }).initialize();
  const d = new PostgresDialect(resolveOptions({ schema }).tables);
  const T = `"${schema}".queuebox_outbox_messages`;
  await ds.query(`INSERT INTO ${T} (message_id, destination, ordering_key, payload) SELECT gen_random_uuid(), 'd', 'k' || (g % 100), '1' FROM generate_series(1, 20000) g`);
  await ds.query(`VACUUM ANALYZE ${T}`);
  const st = d.claimOutbox(new WalkCursor().request(50, 60000));
  for (let i = 0; i < 3; i++) {
    await ds.query('BEGIN');
    const r = await ds.query(`EXPLAIN (ANALYZE, SUMMARY) ${st.sql}`, [...st.params]);
    await ds.query('ROLLBACK');
    console.log(r.slice(-2).map((x: any) => x['QUERY PLAN']).join(' | '));
  }
  const c = d.completeMany('outbox', [{ id: '1', token: '00000000-0000-4000-8000-000000000000' }], 60000);
  const r2 = await ds.query(`EXPLAIN (ANALYZE, SUMMARY) ${c.sql}`, [...c.params]);
  console.log('complete', r2.slice(-2).map((x: any) => x['QUERY PLAN']).join(' | '));
  const ins = d.insertOutbox([{ messageId: '00000000-0000-4000-8000-000000000000', destination: 'd', key: 'k1', headers: '{}', payload: '1', delayMs: 0 }]);
  const r3 = await ds.query(`EXPLAIN (ANALYZE, SUMMARY) ${ins.sql}`, [...ins.params]);
  console.log('insert', r3.slice(-2).map((x: any) => x['QUERY PLAN']).join(' | '));
  await ds.query(`DROP SCHEMA "${schema}" CASCADE`);
  await ds.destroy();
});
