// runCollection against real PostgreSQL over scratch tables: every operator with its
// indeterminate rows, keyset walks under mixed sorts with NULLs and ties, totals, snapshots.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collectionParams } from '../../core/query/params.ts';
import { type CollectionOptions, type Row, runCollection } from '../../core/query/query.ts';
import type { ResourceDef } from '../../core/query/resource.ts';
import { parseParams } from '../../api/params.ts';
import { ApiError } from '../../core/errors.ts';
import { createPool, testDatabaseUrl } from '../helpers/server.ts';

const T = `coll_${Math.random().toString(36).slice(2, 8)}`;
const pool = createPool(testDatabaseUrl(), { max: 4 });
const secret = Buffer.from('collection-test-secret-collection-test');

const def = (table: string, extra: Partial<ResourceDef> = {}): ResourceDef => ({
  name: table,
  from: `${table} t`,
  id: 't.id',
  select: 't.id',
  defaultSort: 'name',
  snapshotColumn: 't.created_at',
  fields: {
    name: { sql: 't.name', type: 'string', sortable: true, nullable: false },
    size: { sql: 't.size', type: 'integer', sortable: true },
    ratio: { sql: 't.ratio', type: 'number', sortable: true },
    open: { sql: 't.open', type: 'boolean', sortable: true },
    day: { sql: 't.day', type: 'date', sortable: true },
    seen: { sql: 't.seen', type: 'timestamp', sortable: true },
    kind: { sql: 't.kind', type: 'enum', enum: ['a', 'b', 'c'], sortable: true },
    tags: { sql: 't.tags', type: 'string[]' },
    use: {
      sql: '',
      type: 'permission',
      permission: {
        permits: (v) => `(SELECT p.allowed FROM ${table}_perm p WHERE p.thing_id = t.id AND p.use = ${v})`,
        forbids: (v) => `(SELECT NOT p.allowed FROM ${table}_perm p WHERE p.thing_id = t.id AND p.use = ${v})`,
      },
    },
    relevance: { sql: (c) => `(1 - similarity(t.name, ${c.bind(c.query, 'text')}))::real`, type: 'number', cast: 'real', sortable: true, filterable: false, nullable: false, requiresQuery: true },
  },
  ...extra,
});
const D = def(T);

async function page(query: Record<string, string | string[]>, d = D, opts: CollectionOptions<Row> = {}) {
  const params = parseParams(collectionParams(d, { includeUnknown: true }), query, {});
  return runCollection(pool, d, params, secret, opts);
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

beforeAll(async () => {
  await pool.query(`CREATE TABLE ${T} (id text PRIMARY KEY, name text NOT NULL, size int, ratio numeric, open boolean, day date,
    seen timestamptz, kind text, tags text[], created_at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE TABLE ${T}_perm (thing_id text, use text, allowed boolean)`);
  await pool.query(`INSERT INTO ${T} (id, name, size, ratio, open, day, seen, kind, tags) VALUES
    ('r01', 'Alpha',   1,    0.1,  true,  '2024-01-01', '2024-01-01T00:00Z', 'a',  '{x,y}'),
    ('r02', 'Bravo',   2,    0.2,  false, '2024-02-01', '2024-02-01T00:00Z', 'b',  '{y}'),
    ('r03', 'charlie', 3,    NULL, true,  '2024-03-01', NULL,                'c',  '{}'),
    ('r04', 'Delta',   NULL, 0.4,  NULL,  NULL,         '2024-04-01T00:00Z', NULL, NULL),
    ('r05', 'Echo',    5,    0.5,  false, '2024-05-01', '2024-05-01T00:00Z', 'a',  '{x}'),
    ('r06', 'alpine',  2,    0.6,  true,  '2024-06-01', '2024-06-01T00:00Z', 'b',  '{z,x,y}')`);
  await pool.query(`INSERT INTO ${T}_perm VALUES ('r01','res',true), ('r02','res',false), ('r04','res',true), ('r06','res',false)`);
  // a larger set for walks: ties, NULLs in every sortable column
  await pool.query(`CREATE TABLE ${T}_w AS
    SELECT 'w' || lpad(g::text, 4, '0') AS id, 'n' || (g % 17) AS name,
           CASE WHEN g % 9 = 0 THEN NULL ELSE g % 5 END AS size,
           CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 4) / 4.0 END AS ratio,
           CASE WHEN g % 6 = 0 THEN NULL ELSE g % 2 = 0 END AS open,
           CASE WHEN g % 8 = 0 THEN NULL ELSE date '2024-01-01' + (g % 10) END AS day,
           CASE WHEN g % 11 = 0 THEN NULL ELSE timestamptz '2024-01-01T00:00:00.123456Z' + (g % 3) * interval '1 microsecond' END AS seen,
           (ARRAY['a','b','c',NULL])[1 + g % 4] AS kind, ARRAY['x'] AS tags, now() AS created_at
      FROM generate_series(1, 157) g`);
  await pool.query(`CREATE TABLE ${T}_big AS SELECT 'b' || g AS id, 'n' || g AS name, g AS size, NULL::numeric AS ratio, NULL::boolean AS open,
    NULL::date AS day, NULL::timestamptz AS seen, NULL::text AS kind, NULL::text[] AS tags, now() AS created_at FROM generate_series(1, 10050) g`);
});

afterAll(async () => {
  await pool.query(`DROP TABLE IF EXISTS ${T}, ${T}_perm, ${T}_w, ${T}_big`);
  await pool.end();
});

const ids = (items: Array<Row>, outcome: string) => items.filter((i) => i.filter_outcome === outcome).map((i) => i.id).sort();

describe('every operator, with the rows it cannot evaluate marked indeterminate', () => {
  const cases: Array<[Record<string, string | string[]>, string[], string[]]> = [
    [{ 'filter[name][eq]': 'Bravo' }, ['r02'], []],
    [{ 'filter[size][ne]': '2' }, ['r01', 'r03', 'r05'], ['r04']],
    [{ 'filter[size][in]': '1,5' }, ['r01', 'r05'], ['r04']],
    [{ 'filter[kind][nin]': 'a' }, ['r02', 'r03', 'r06'], ['r04']],
    [{ 'filter[size][lt]': '3' }, ['r01', 'r02', 'r06'], ['r04']],
    [{ 'filter[size][lte]': '3' }, ['r01', 'r02', 'r03', 'r06'], ['r04']],
    [{ 'filter[ratio][gt]': '0.4' }, ['r05', 'r06'], ['r03']],
    [{ 'filter[day][gte]': '2024-03-01' }, ['r03', 'r05', 'r06'], ['r04']],
    [{ 'filter[seen][between]': '2024-02-01,2024-04-01T00:00:00Z' }, ['r02', 'r04'], ['r03']],
    [{ 'filter[open][eq]': 'true' }, ['r01', 'r03', 'r06'], ['r04']],
    [{ 'filter[name][prefix]': 'AL' }, ['r01', 'r06'], []],
    [{ 'filter[name][contains]': 'aR' }, ['r03'], []],
    [{ 'filter[tags][contains]': 'x' }, ['r01', 'r05', 'r06'], ['r04']],
    [{ 'filter[tags][any]': 'x,z' }, ['r01', 'r05', 'r06'], ['r04']],
    [{ 'filter[tags][all]': 'x,y' }, ['r01', 'r06'], ['r04']],
    [{ 'filter[open][is_null]': 'true' }, ['r04'], []],
    [{ 'filter[open][not_null]': 'true' }, ['r01', 'r02', 'r03', 'r05', 'r06'], []],
    [{ 'filter[use][permits]': 'res' }, ['r01', 'r04'], ['r03', 'r05']],
    [{ 'filter[use][forbids]': 'res' }, ['r02', 'r06'], ['r03', 'r05']],
    // repeated values OR; different parameters AND (a range on one field)
    [{ 'filter[name][eq]': ['Alpha', 'Echo'] }, ['r01', 'r05'], []],
    [{ 'filter[size][gte]': '2', 'filter[size][lte]': '3' }, ['r02', 'r03', 'r06'], ['r04']],
    // unknown AND true is indeterminate; unknown AND false is out
    [{ 'filter[size][gte]': '1', 'filter[ratio][gte]': '0.1' }, ['r01', 'r02', 'r05', 'r06'], ['r03', 'r04']],
    [{ 'filter[size][gt]': '4', 'filter[ratio][gt]': '0' }, ['r05'], ['r04']],
  ];
  test.each(cases)('%j', async (query, match, indeterminate) => {
    const r = await page(query);
    expect(ids(r.items, 'match')).toEqual(match);
    expect(ids(r.items, 'indeterminate')).toEqual(indeterminate);
    expect(r.page.indeterminate).toBe(indeterminate.length);
    expect(r.items.length).toBe(match.length + indeterminate.length);
  });

  test('filter_indeterminate exclude and only; include_unknown=false', async () => {
    const q = { 'filter[size][ne]': '2' };
    expect(ids((await page({ ...q, filter_indeterminate: 'exclude' })).items, 'match')).toEqual(['r01', 'r03', 'r05']);
    expect((await page({ ...q, filter_indeterminate: 'exclude' })).page.indeterminate).toBe(0);
    const only = await page({ ...q, filter_indeterminate: 'only' });
    expect(only.items.map((i) => [i.id, i.filter_outcome])).toEqual([['r04', 'indeterminate']]);
    expect(ids((await page({ ...q, include_unknown: 'false' })).items, 'match')).toEqual(['r01', 'r03', 'r05']);
    expect((await page({ ...q, include_unknown: 'false' })).items).toHaveLength(3);
    expect((await refusal(page({ ...q, include_unknown: 'false', filter_indeterminate: 'include' }))).field).toBe('include_unknown');
    expect((await refusal(page({ filter_indeterminate: 'only' }))).field).toBe('filter_indeterminate');
  });

  test('without a filter, no filter_outcome is added', async () => {
    const r = await page({});
    expect(r.items).toHaveLength(6);
    expect(r.items[0]).toEqual({ id: 'r01' });
  });
});

async function walk(query: Record<string, string>, d: ResourceDef, opts: CollectionOptions<Row> = {}) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: Awaited<ReturnType<typeof page>> = await page({ ...query, ...(cursor ? { cursor } : {}) }, d, opts);
    seen.push(...r.items.map((i) => i.id));
    cursor = r.page.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  return { seen, pages };
}

describe('keyset walks', () => {
  const W = def(`${T}_w`);
  const orders: Array<[string, string]> = [
    ['name', 'name ASC, id ASC'],
    ['-name', 'name DESC, id DESC'],
    ['-size', 'size DESC NULLS LAST, id DESC'],
    ['size,-day', 'size ASC NULLS LAST, day DESC NULLS LAST, id DESC'],
    ['-size,day,-ratio', 'size DESC NULLS LAST, day ASC NULLS LAST, ratio DESC NULLS LAST, id DESC'],
    ['open,-kind', 'open ASC NULLS LAST, kind DESC NULLS LAST, id DESC'],
    ['seen', 'seen ASC NULLS LAST, id ASC'],
  ];
  test.each(orders)('sort=%s visits every row once in SQL order', async (sort, orderBy) => {
    const expected = (await pool.query(`SELECT id FROM ${T}_w ORDER BY ${orderBy}`)).rows.map((r) => r.id);
    const { seen, pages } = await walk({ sort, size: '13' }, W);
    expect(pages).toBe(Math.ceil(157 / 13));
    expect(seen).toEqual(expected);
  });

  test('a filtered walk with indeterminate rows, and a walk by relevance', async () => {
    const expected = (await pool.query(`SELECT id FROM ${T}_w WHERE (size >= 2) IS NOT FALSE ORDER BY ratio DESC NULLS LAST, id DESC`)).rows.map((r) => r.id);
    expect((await walk({ sort: '-ratio', size: '10', 'filter[size][gte]': '2' }, W)).seen).toEqual(expected);
    const rel = (await pool.query(`SELECT id FROM ${T}_w ORDER BY (1 - similarity(name, 'n1'))::real, id`)).rows.map((r) => r.id);
    expect((await walk({ sort: 'relevance', size: '20' }, W, { query: 'n1' })).seen).toEqual(rel);
    expect((await refusal(page({ sort: 'relevance' }, W))).code).toBe('sort_requires_query');
  });

  test('rows created after the first page stay out of the walk; a new walk sees them', async () => {
    const first = await page({ size: '3' });
    expect(first.items.map((i) => i.id)).toEqual(['r01', 'r02', 'r04']);
    await pool.query(`INSERT INTO ${T} (id, name) VALUES ('r00', 'Aardvark'), ('r99', 'Zulu')`);
    try {
      const rest = await page({ size: '10', cursor: first.page.next_cursor! });
      expect(rest.items.map((i) => i.id)).toEqual(['r05', 'r06', 'r03']);
      expect(rest.snapshot).toBe(first.snapshot);
      expect((await page({ size: '10' })).items.map((i) => i.id)).toEqual(['r00', 'r01', 'r02', 'r04', 'r05', 'r99', 'r06', 'r03']);
    } finally {
      await pool.query(`DELETE FROM ${T} WHERE id IN ('r00', 'r99')`);
    }
  });

  test('a cursor refuses other filters, another sort, age, and a snapshot no longer retained', async () => {
    const first = await page({ size: '2', 'filter[size][gte]': '1' });
    const cursor = first.page.next_cursor!;
    expect((await refusal(page({ size: '2', cursor, 'filter[size][gte]': '2' })))).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
    expect((await refusal(page({ size: '2', cursor, 'filter[size][gte]': '1', sort: '-name' }))).code).toBe('cursor_sort_mismatch');
    const later = new Date(Date.now() + 25 * 3600 * 1000);
    expect((await refusal(page({ size: '2', cursor, 'filter[size][gte]': '1' }, D, { now: later }))).code).toBe('cursor_expired');
    const gone = def(T, { retainedSince: async () => new Date(Date.now() + 1000).toISOString() });
    expect((await refusal(page({ size: '2', cursor, 'filter[size][gte]': '1' }, gone))).code).toBe('cursor_snapshot_gone');
    expect((await page({ size: '2', cursor, 'filter[size][gte]': '1' })).items.length).toBe(2);
    expect((await refusal(page({ size: '2', cursor: cursor.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }))).field).toBe('cursor');
  });
});

describe('total', () => {
  test('eq below the cap, first page only, counted once', async () => {
    const r = await page({ size: '2', total: 'true', 'filter[size][gte]': '2' });
    expect(r.page.total).toEqual({ value: 5, relation: 'eq' });
    expect((await page({ size: '2', total: 'true', cursor: r.page.next_cursor!, 'filter[size][gte]': '2' })).page.total).toBeUndefined();
    expect((await page({ size: '50', total: 'true' })).page.total).toEqual({ value: 6, relation: 'eq' });
    expect((await page({ total: 'true', 'filter[name][eq]': 'nobody' })).page.total).toEqual({ value: 0, relation: 'eq' });
  });

  test('gte 10,000 above the cap; the cap is an option', async () => {
    const big = def(`${T}_big`);
    expect((await page({ total: 'true', size: '5' }, big)).page.total).toEqual({ value: 10000, relation: 'gte' });
    expect((await page({ total: 'true', size: '5', 'filter[size][lte]': '10000' }, big)).page.total).toEqual({ value: 10000, relation: 'eq' });
    expect((await page({ total: 'true', size: '5', 'filter[size][lte]': '30' }, big, { totalCap: 20 })).page.total).toEqual({ value: 20, relation: 'gte' });
    expect((await page({ total: 'true', size: '5', 'filter[size][lte]': '20' }, big, { totalCap: 20 })).page.total).toEqual({ value: 20, relation: 'eq' });
  });
});
