// The bitemporal load on a real table: adds, amendments, repeals, re-runs that change nothing,
// and both time axes giving each version back.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FactSpec, applyFacts } from '../../store/bitemporal.ts';
import { createPool, type Pool, withTransaction } from '../../store/db.ts';
import { testDatabaseUrl } from '../helpers/server.ts';

let pool: Pool;
const spec = (scope: string): FactSpec => ({
  table: 'bt_probe',
  columns: ['scope', 'value'],
  scope: { where: 't.scope = $1', params: [scope] },
  deltaColumns: ['value'],
});
const fact = (id: string, value: string, valid_from: string, scope: string) => ({
  id,
  content_sha256: value,
  valid_from,
  values: [scope, value],
});

beforeAll(async () => {
  pool = createPool(testDatabaseUrl());
  await pool.query(`CREATE TABLE IF NOT EXISTS bt_probe (
    fact_id bigserial PRIMARY KEY, id text NOT NULL, content_sha256 text NOT NULL, scope text NOT NULL, value text,
    valid daterange NOT NULL, known tstzrange NOT NULL,
    EXCLUDE USING gist (id WITH =, valid WITH &&, known WITH &&))`);
});
afterAll(async () => {
  await pool.end();
});

async function valueAt(id: string, asOf: string, knownAsOf: Date) {
  const { rows } = await pool.query('SELECT value FROM bt_probe WHERE id = $1 AND valid @> $2::date AND known @> $3::timestamptz', [id, asOf, knownAsOf.toISOString()]);
  return rows.map((r) => r.value);
}

test('version 1 then 2: added, changed, removed, unchanged; each version answers on both axes', async () => {
  const s = 'town-a';
  const t1 = new Date('2026-01-10T12:00:00Z');
  const t2 = new Date('2026-03-10T12:00:00Z');
  const d1 = await withTransaction(pool, (c) =>
    applyFacts(c, spec(s), [fact('a:setback', '25 ft', '2026-01-01', s), fact('a:height', '35 ft', '2026-01-01', s), fact('a:old', 'x', '2026-01-01', s)], { now: t1, removeMissing: true }),
  );
  expect([d1.added.length, d1.changed.length, d1.removed.length, d1.unchanged]).toEqual([3, 0, 0, 0]);

  const again = await withTransaction(pool, (c) =>
    applyFacts(c, spec(s), [fact('a:setback', '25 ft', '2026-01-01', s), fact('a:height', '35 ft', '2026-01-01', s), fact('a:old', 'x', '2026-01-01', s)], { now: t2, removeMissing: true }),
  );
  expect([again.added.length, again.changed.length, again.removed.length, again.unchanged]).toEqual([0, 0, 0, 3]);

  const d2 = await withTransaction(pool, (c) =>
    applyFacts(c, spec(s), [fact('a:setback', '20 ft', '2026-03-01', s), fact('a:height', '35 ft', '2026-03-01', s), fact('a:new', 'y', '2026-03-01', s)], {
      now: t2,
      removeMissing: true,
      removedOn: '2026-03-01',
    }),
  );
  expect(d2.changed).toEqual([{ id: 'a:setback', valid_from: '2026-03-01', previous: { value: '25 ft' }, current: { value: '20 ft' } }]);
  expect(d2.added.map((r) => r.id)).toEqual(['a:new']);
  expect(d2.removed.map((r) => r.id)).toEqual(['a:old']);
  expect(d2.unchanged).toBe(1);

  const before = new Date('2026-02-01T00:00:00Z');
  const after = new Date('2026-04-01T00:00:00Z');
  // known then: the law as we knew it in February
  expect(await valueAt('a:setback', '2026-04-01', before)).toEqual(['25 ft']);
  expect(await valueAt('a:old', '2026-04-01', before)).toEqual(['x']);
  // known now: February's law, and April's
  expect(await valueAt('a:setback', '2026-02-01', after)).toEqual(['25 ft']);
  expect(await valueAt('a:setback', '2026-04-01', after)).toEqual(['20 ft']);
  expect(await valueAt('a:old', '2026-02-01', after)).toEqual(['x']);
  expect(await valueAt('a:old', '2026-04-01', after)).toEqual([]);
  expect(await valueAt('a:new', '2026-02-01', after)).toEqual([]);
  // other scopes are untouched
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM bt_probe WHERE scope <> $1`, [s]);
  expect(rows[0].n).toBe(0);
});

test('a failure part-way loses nothing already held', async () => {
  const s = 'town-b';
  await withTransaction(pool, (c) => applyFacts(c, spec(s), [fact('b:1', 'v1', '2026-01-01', s)], { now: new Date('2026-01-02T00:00:00Z'), removeMissing: true }));
  await expect(
    withTransaction(pool, async (c) => {
      await applyFacts(c, spec(s), [fact('b:1', 'v2', '2026-02-01', s)], { now: new Date('2026-02-02T00:00:00Z'), removeMissing: true });
      throw new Error('crash after the load, before commit');
    }),
  ).rejects.toThrow('crash');
  expect(await valueAt('b:1', '2026-03-01', new Date())).toEqual(['v1']);
});
