// GET /jurisdiction over real HTTP and PostGIS: the bare list form, sorts walked page by page,
// the filter grammar with indeterminate rows, and the operation's own parameters.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CAMBRIDGE, MA, MIDDLESEX, SOMERVILLE, type Town, jid, jurisdictionFixture } from '../helpers/jurisdictions.ts';

const f = jurisdictionFixture(0);
const { P, towns, isolate: ISOLATE } = f;
const get = f.get;
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Item = Record<string, any>;

beforeAll(f.setup);
afterAll(f.teardown);

describe('GET /jurisdiction', () => {
  test('bare form: item[] and page, no envelope', async () => {
    const r = await get('/jurisdiction', { ...ISOLATE, size: '200' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['item', 'page']);
    expect(r.body.page).toEqual({ size: 61, next_cursor: null, indeterminate: 0, suppressed: 0 });
    const town = r.body.item.find((i: { id: string }) => i.id === towns[11].id);
    expect(town).toEqual({
      id: towns[11].id, slug: towns[11].slug, name: towns[11].name, legal_name: towns[11].legal_name, type: 'town', gnis_id: null,
      population: 4500, population_year: 2020, lifecycle_status: 'active',
      fips: { level: 'cousub', code: `25017${towns[11].cousub}`, state: '25', key: towns[11].fips_key, county: '017', cousub: towns[11].cousub, place: null },
      timezone: 'America/New_York', parent: MIDDLESEX, href: `/jurisdiction/${towns[11].id}`,
      created_at: expect.any(String), updated_at: expect.any(String), filter_outcome: 'match',
    });
  });

  const sorts: Array<[string, string]> = [
    ['name', 'name, id'],
    ['-name', 'name DESC, id DESC'],
    ['population', 'population NULLS LAST, id'],
    ['-population', 'population DESC NULLS LAST, id DESC'],
    ['fips', `split_part(fips_key, ':', 3), id`],
    ['-fips', `split_part(fips_key, ':', 3) DESC, id DESC`],
    ['created_at', 'created_at, id'],
    ['-created_at', 'created_at DESC, id DESC'],
    ['-population,name', 'population DESC NULLS LAST, name, id'],
    ['population,-name', 'population NULLS LAST, name DESC, id DESC'],
  ];
  test.each(sorts)('sort=%s: every page walked equals SQL ORDER BY %s', async (sort, orderBy) => {
    const { seen, pages } = await f.walk('/jurisdiction', { ...ISOLATE, sort, size: '7' });
    expect(pages).toBe(9);
    expect(seen).toEqual(await f.sqlIds(orderBy));
  });

  test('the /v1 form walks the same pages', async () => {
    const bare = await f.walk('/jurisdiction', { ...ISOLATE, sort: '-population', size: '9' });
    const v1 = await f.walk('/v1/jurisdiction', { ...ISOLATE, sort: '-population', size: '9' });
    expect(v1.seen).toEqual(bare.seen);
  });

  const value = (t: Town, f: string) => (f === 'population' ? t.population : t.legal_name);
  const ops: Array<[string, string, string, (v: Item[string]) => boolean]> = [
    ['population', 'eq', '1500', (v) => v === 1500],
    ['population', 'ne', '1500', (v) => v !== 1500],
    ['population', 'in', '500,2500', (v) => v === 500 || v === 2500],
    ['population', 'nin', '500,2500', (v) => v !== 500 && v !== 2500],
    ['population', 'lt', '2500', (v) => v < 2500],
    ['population', 'lte', '2500', (v) => v <= 2500],
    ['population', 'gt', '4500', (v) => v > 4500],
    ['population', 'gte', '4500', (v) => v >= 4500],
    ['population', 'between', '1500,3500', (v) => v >= 1500 && v <= 3500],
    ['legal_name', 'prefix', `town of ${P.toLowerCase()} 2`, (v) => v.toLowerCase().startsWith(`town of ${P.toLowerCase()} 2`)],
    ['legal_name', 'contains', `${P.toUpperCase()} 1`, (v) => v.includes(`${P} 1`)],
  ];
  test.each(ops)('filter[%s][%s]=%s: matches, and rows without a value are indeterminate', async (field, op, v, pred) => {
    const r = await get('/jurisdiction', { ...ISOLATE, [`filter[${field}][${op}]`]: v, size: '200' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const got = (o: string) => r.body.item.filter((i: Item) => i.filter_outcome === o).map((i: Item) => i.id).sort();
    const match = towns.filter((t) => value(t, field) !== null && pred(value(t, field))).map((t) => t.id).sort();
    const unknown = towns.filter((t) => value(t, field) === null).map((t) => t.id).sort();
    expect(match.length).toBeGreaterThan(0);
    expect(got('match')).toEqual(match);
    expect(got('indeterminate')).toEqual(unknown);
    expect(r.body.page.indeterminate).toBe(unknown.length);
    const excluded = await get('/jurisdiction', { ...ISOLATE, [`filter[${field}][${op}]`]: v, size: '200', filter_indeterminate: 'exclude' });
    expect(excluded.body.item.map((i: Item) => i.id).sort()).toEqual(match);
    const only = await get('/jurisdiction', { ...ISOLATE, [`filter[${field}][${op}]`]: v, size: '200', filter_indeterminate: 'only' });
    expect(only.body.item.map((i: Item) => i.id).sort()).toEqual(unknown);
  });

  test('is_null and not_null evaluate every row', async () => {
    const nulls = towns.filter((t) => t.population === null).map((t) => t.id).sort();
    const a = await get('/jurisdiction', { ...ISOLATE, 'filter[population][is_null]': 'true', size: '200' });
    expect(a.body.item.map((i: Item) => i.id).sort()).toEqual(nulls);
    expect(a.body.page.indeterminate).toBe(0);
    const b = await get('/jurisdiction', { ...ISOLATE, 'filter[population][not_null]': 'true', size: '200' });
    expect(b.body.item).toHaveLength(61 - nulls.length);
  });

  test('operators the field type does not take, unknown operators and fields, bad values: 422 naming the parameter', async () => {
    for (const [k, v] of [['filter[name][any]', 'x'], ['filter[name][all]', 'x'], ['filter[population][permits]', 'x'], ['filter[population][forbids]', 'x'], ['filter[population][prefix]', '1'], ['filter[name][like]', 'x']]) {
      const r = await get('/jurisdiction', { [k]: v });
      expect(r.status, k).toBe(422);
      expect(r.body.detail.error, k).toMatchObject({ code: 'parameter_invalid', field: k });
    }
    const unknown = await get('/jurisdiction', { 'filter[zoning][eq]': 'R1' });
    expect(unknown.body.detail.error).toMatchObject({ code: 'field_unknown', field: 'filter[zoning][eq]' });
    expect(unknown.body.detail.error.detail).toContain('population');
    expect((await get('/jurisdiction', { 'filter[population][gt]': 'many' })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'filter[population][gt]' });
    expect((await get('/jurisdiction', { 'filter[type][eq]': 'hamlet' })).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'filter[type][eq]' });
  });

  test('population[gte] and [lte]: a range, with rows lacking population indeterminate', async () => {
    const r = await get('/jurisdiction', { ...ISOLATE, 'population[gte]': '2000', 'population[lte]': '4000', size: '200' });
    const match = towns.filter((t) => t.population !== null && t.population >= 2000 && t.population <= 4000).map((t) => t.id).sort();
    expect(r.body.item.filter((i: Item) => i.filter_outcome === 'match').map((i: Item) => i.id).sort()).toEqual(match);
    expect(r.body.page.indeterminate).toBe(towns.filter((t) => t.population === null).length);
    expect((await get('/jurisdiction', { 'population[gte]': 'x' })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'population[gte]' });
  });

  test('q: case and punctuation insensitive', async () => {
    for (const q of [`${P.toUpperCase()} saint jean's`, `${P.toLowerCase()}, SAINT-JEAN S LANDING!`]) {
      const r = await get('/jurisdiction', { q });
      expect(r.status).toBe(200);
      expect(r.body.item.map((i: Item) => i.id), q).toContain(towns[60].id);
    }
    const ranked = await get('/jurisdiction', { q: `${P} saint jeans landing`, sort: 'relevance', size: '1' });
    expect(ranked.body.item[0].id).toBe(towns[60].id);
    expect((await get('/jurisdiction', { q: '?!' })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'q' });
    expect((await get('/jurisdiction', { sort: 'relevance' })).body.detail.error).toMatchObject({ code: 'sort_requires_query', field: 'sort' });
  });

  test('state as postal code or FIPS; county as 5 digits, 3 digits with state, or a county id', async () => {
    const ids = async (q: Record<string, string>) => {
      const r = await get('/jurisdiction', { ...ISOLATE, size: '200', ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.item.map((i: Item) => i.id).sort();
    };
    const all = towns.map((t) => t.id).sort();
    expect(await ids({ state: 'ma' })).toEqual(all);
    expect(await ids({ state: '25' })).toEqual(all);
    expect(await ids({ state: 'RI' })).toEqual([]);
    expect(await ids({ county: '25017' })).toEqual(all);
    expect(await ids({ county: '017', state: 'MA' })).toEqual(all);
    expect(await ids({ county: MIDDLESEX })).toEqual(all);
    const direct = await get('/jurisdiction', { county: '25017', size: '200', 'filter[fips][prefix]': '25017', 'filter[type][in]': 'city,county' });
    expect(direct.body.item.map((i: Item) => i.id)).toEqual(expect.arrayContaining([MIDDLESEX, CAMBRIDGE, SOMERVILLE]));
    const refusals: Array<[Record<string, string>, string, string]> = [
      [{ state: 'ZZ' }, 'vocabulary_value_unknown', 'state'],
      [{ state: 'Mass' }, 'parameter_invalid', 'state'],
      [{ county: '017' }, 'parameter_invalid', 'county'],
      [{ county: '36061', state: 'MA' }, 'parameter_invalid', 'county'],
      [{ county: CAMBRIDGE }, 'parameter_invalid', 'county'],
      [{ county: 'jur_!!' }, 'id_malformed', 'county'],
      [{ county: jid('us:county:99999') }, 'parameter_invalid', 'county'],
    ];
    for (const [q, code, field] of refusals) expect((await get('/jurisdiction', q)).body.detail.error, JSON.stringify(q)).toMatchObject({ code, field });
  });

  test('type, level and fips (a fips_key, or a bare code with level)', async () => {
    const cities = await get('/jurisdiction', { ...ISOLATE, type: 'city', size: '200' });
    expect(cities.body.item.map((i: Item) => i.id).sort()).toEqual(towns.filter((t) => t.type === 'city').map((t) => t.id).sort());
    expect((await get('/jurisdiction', { ...ISOLATE, level: 'county' })).body.item).toEqual([]);
    expect((await get('/jurisdiction', { fips: 'us:cousub:2501711000' })).body.item.map((i: Item) => i.id)).toEqual([CAMBRIDGE]);
    expect((await get('/jurisdiction', { fips: '2501711000', level: 'cousub' })).body.item.map((i: Item) => i.id)).toEqual([CAMBRIDGE]);
    expect((await get('/jurisdiction', { fips: '25', level: 'state' })).body.item.map((i: Item) => i.id)).toEqual([MA]);
    const bad: Array<Record<string, string>> = [{ fips: '2501711000' }, { fips: '25017', level: 'state' }, { fips: 'us:town:25' }, { fips: 'us:county:250' }];
    for (const q of bad) {
      expect((await get('/jurisdiction', q)).body.detail.error, JSON.stringify(q)).toMatchObject({ code: 'parameter_invalid', field: 'fips' });
    }
    expect((await get('/jurisdiction', { type: 'hamlet' })).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'type' });
    expect((await get('/jurisdiction', { level: 'city' })).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'level' });
  });

  test('has_zoning and coverage_tier refuse rather than answer unfiltered, and charge nothing', async () => {
    for (const [k, v] of [['has_zoning', 'true'], ['coverage_tier', 'full']]) {
      const r = await get('/jurisdiction', { [k]: v });
      expect(r.status).toBe(501);
      expect(r.body.detail.error).toMatchObject({ code: 'not_available', field: k });
      expect(await f.charged(r.headers.get('x-request-id')!)).toBe(0);
    }
  });

  test('sort and size bounds', async () => {
    expect((await get('/jurisdiction', { sort: 'area' })).body.detail.error).toMatchObject({ code: 'field_unknown', field: 'sort' });
    expect((await get('/jurisdiction', { sort: 'area' })).body.detail.error.detail).toContain('created_at, fips, name, population, relevance');
    expect((await get('/jurisdiction', { sort: 'name,population,fips,created_at' })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'sort' });
    for (const size of ['0', '201', 'x']) expect((await get('/jurisdiction', { size })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'size' });
    expect((await get('/jurisdiction', { ...ISOLATE, size: '1' })).body.item).toHaveLength(1);
  });
});
