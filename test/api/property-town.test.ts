// Property records over the synthetic town (test/fixtures/synthetic-town/EXPECTED.md), ingested v1
// then v2: owners of record on a date (the roll, then deed 2026-000480 of 105 Main St), on both
// time axes; transactions filtered against the registry's figures; sorts and cursor walks against
// SQL; values the roll leaves blank withheld with why; refusals of what cannot be answered.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

/** An answer's JSON, as the tests read it. */
// biome-ignore lint/suspicious/noExplicitAny: answers are checked against the OpenAPI document, then read loosely
type J = any;

const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
/** property id by roll account */
const pty: Record<string, string> = {};
const prc: Record<string, string> = {};

const get = (path: string) => call(server, 'GET', path, { key });
const labels = (b: { item: Array<{ label: string }> }) => b.item.map((i) => i.label);
const numbers = (b: { item: Array<{ instrument: { number: string } }> }) => b.item.map((i) => i.instrument.number);

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('property_town', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  for (const r of (await h.pool.query('SELECT DISTINCT id, account_key FROM property')).rows) pty[r.account_key] = r.id;
  for (const r of (await h.pool.query('SELECT DISTINCT id, parcel_key FROM parcel')).rows) prc[r.parcel_key] = r.id;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

/** The order of a walk: by `key` (NULLs last either way), then by id in the same direction. */
const order = (key: string, desc: boolean) => (a: J, b: J) => {
  const [x, y] = [a[key], b[key]];
  if (x === null && y !== null) return 1;
  if (y === null && x !== null) return -1;
  const s = desc ? -1 : 1;
  if (x !== null && x !== y) return (x < y ? -1 : 1) * s;
  return (a.id < b.id ? -1 : 1) * s;
};

/** Every page of a walk, following next_cursor. */
async function walk(path: string) {
  const items: J[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    items.push(...r.body.item);
    cursor = r.body.page.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe('owners of record', () => {
  test('owner_name finds every property held under the name, as the roll states them (SQL)', async () => {
    // no deed was recorded after the roll took effect but 2026-000480 (HALE to ROSSI), so for every other name the roll is the record
    const { rows } = await h.pool.query(`SELECT DISTINCT o AS name FROM property, jsonb_array_elements_text(ownership->'owners') o WHERE o <> 'HALE, THOMAS J'`);
    expect(rows.length).toBeGreaterThan(20);
    for (const { name } of rows) {
      const want = (await h.pool.query(`SELECT DISTINCT id FROM property WHERE ownership->'owners' ? $1 AND upper_inf(known) ORDER BY id`, [name])).rows.map((r) => r.id);
      const r = await get(`/property?owner_name=${encodeURIComponent(name)}&size=200`);
      expect(r.status).toBe(200);
      expect(r.body.item.map((i: { id: string }) => i.id).sort(), name).toEqual(want);
    }
    // a name held by two properties (a deed of two parcels): both, case and spacing folded
    const llc = await get(`/property?owner_name=${encodeURIComponent('  main and   depot llc ')}&include=ownership`);
    expect(labels(llc.body)).toEqual(['301 MAIN ST', '305-307 MAIN ST']);
    // a co-owner is an owner
    expect(labels((await get(`/property?owner_name=${encodeURIComponent('KOWALSKI FAMILY TRUST')}`)).body)).toEqual(['20 ORCHARD LN']);
    // punctuation is part of the name: no match without the comma
    expect((await get(`/property?owner_name=${encodeURIComponent('MAIN AND DEPOT, LLC')}`)).body.item).toEqual([]);
    // a grantor of a deed recorded before the roll owns nothing now
    expect((await get(`/property?owner_name=${encodeURIComponent('PRESCOTT, DAVID')}`)).body.item).toEqual([]);
  });

  test('deed 2026-000480 (recorded 2026-04-20) makes ROSSI, ANGELA the owner of 105 Main St from that day', async () => {
    const q = (name: string, asOf = '') => get(`/property?owner_name=${encodeURIComponent(name)}${asOf}&include=ownership`);
    expect(labels((await q('HALE, THOMAS J', '&as_of=2026-04-19')).body)).toEqual(['105 MAIN ST']);
    expect((await q('HALE, THOMAS J', '&as_of=2026-04-20')).body.item).toEqual([]);
    expect((await q('HALE, THOMAS J')).body.item).toEqual([]);
    expect((await q('ROSSI, ANGELA', '&as_of=2026-04-19')).body.item).toEqual([]);
    const now = await q('rossi, angela');
    expect(labels(now.body)).toEqual(['105 MAIN ST']);
    expect(now.body.item[0].ownership).toMatchObject({ basis: 'recorded_instrument', owners: ['ROSSI, ANGELA'], on_record_since: '2026-04-20', roll: { owners: ['HALE, THOMAS J'] } });
    // as known before v2 was ingested, the deed was not on record: HALE still, whatever the date
    expect(labels((await q('HALE, THOMAS J', '&as_of=2026-05-01&known_as_of=2026-04-01')).body)).toEqual(['105 MAIN ST']);
  });

  test('GET /property/{id}: as_of selects the ownership on record then, known_as_of what was known', async () => {
    const one = (qs: string) => get(`/property/${pty['1004']}?include=ownership,transaction${qs}`);
    const before = await one('&as_of=2026-04-19');
    expect(before.status).toBe(200);
    expect(before.body.item.ownership).toMatchObject({ basis: 'assessor_roll', owners: ['HALE, THOMAS J'], on_record_since: '2026-03-05', status: 'stated' });
    expect(numbers({ item: before.body.item.transaction })).toEqual(['2019-000412']);
    const after = await one('&as_of=2026-04-20');
    expect(after.body.item.ownership).toMatchObject({
      basis: 'recorded_instrument',
      owners: ['ROSSI, ANGELA'],
      transaction: { kind: 'sale', recorded_on: '2026-04-20', sale_date: '2026-04-16', instrument: { number: '2026-000480', book: '8512', page: '66' }, consideration: { amount_cents: 52900000 } },
      mailing_address: null,
    });
    expect(after.body.item.ownership.withheld[0]).toMatchObject({ field: 'mailing_address' });
    expect(numbers({ item: after.body.item.transaction })).toEqual(['2026-000480', '2019-000412']);
    expect(Object.values(after.body.item.source_freshness).flat()).toEqual(expect.arrayContaining(['assessor-roll', 'registry-index']));
    const unknown = await one('&as_of=2026-04-25&known_as_of=2026-04-01');
    expect(unknown.body.item.ownership.owners).toEqual(['HALE, THOMAS J']);
    expect(numbers({ item: unknown.body.item.transaction })).toEqual(['2019-000412']);
    // before the roll took effect nothing of it is on record: item null, said so (404 is for unknown ids)
    const early = await one('&as_of=2020-01-01');
    expect(early.status).toBe(200);
    expect(early.body.item).toBeNull();
    expect(early.body.notice[0]).toMatchObject({ code: 'not_on_record', subject: [pty['1004']] });
    expect(early.body.notice[0].detail).toContain('in force from 2026-03-05');
  });

  test('an interval as_of gives segment[]: no roll, then the roll, then the deed', async () => {
    const r = await get(`/property/${pty['1004']}?include=ownership&as_of=${encodeURIComponent('from:2026-03-01 to:2026-04-30')}`);
    expect(r.status).toBe(200);
    expect(r.body.item.segment.map((s: J) => [s.from, s.to, s.on_record, s.ownership?.owners ?? null])).toEqual([
      ['2026-03-01', '2026-03-04', false, null],
      ['2026-03-05', '2026-04-19', true, ['HALE, THOMAS J']],
      ['2026-04-20', '2026-04-30', true, ['ROSSI, ANGELA']],
    ]);
    expect(r.body.item.ownership.owners).toEqual(['ROSSI, ANGELA']);
    expect(r.body.as_of).toMatchObject({ segment_count: 3, constant: false });
    expect(r.body.notice[0]).toMatchObject({ code: 'as_of_interval_spans_change', count: 3 });
    // a quiet interval is one segment
    const quiet = await get(`/property/${pty['1003']}?include=ownership&as_of=${encodeURIComponent('from:2026-04-01 to:2026-06-30')}`);
    expect(quiet.body.item.segment).toHaveLength(1);
    expect(quiet.body.as_of.constant).toBe(true);
  });

  test("a condominium unit's deed is not the other unit's", async () => {
    const unit2 = await get(`/transaction?property=${pty['1015']}`);
    expect(numbers(unit2.body)).toEqual(['2025-000901']);
    expect((await get(`/transaction?property=${pty['1014']}`)).body.item).toEqual([]);
    const both = await get(`/property?parcel=${prc['4-22']}&include=ownership`);
    expect(both.body.item.map((i: J) => [i.label, i.ownership.owners])).toEqual([
      ['210 MAIN ST #1', ['LIU, MEI']],
      ['210 MAIN ST #2', ['BRENNAN, SARAH']],
    ]);
  });
});

describe('transactions against the registry (EXPECTED.md, v2: 11 transactions)', () => {
  const T = (qs: string) => get(`/transaction?jurisdiction=millbrook-ma&size=200${qs}`);

  test('kind', async () => {
    expect(numbers((await T('')).body).sort()).toHaveLength(11);
    expect(numbers((await T('&kind=sale')).body).sort()).toEqual(['2021-001877', '2022-000950', '2024-001102', '2025-000901', '2025-001600', '2026-000480']);
    expect(numbers((await T('&kind=transfer')).body).sort()).toEqual(['2019-000412', '2025-000310', '2025-001400']);
    const m = await T('&kind=mortgage,assignment');
    expect(m.body.item.map((i: J) => [i.instrument.number, i.kind, i.consideration.amount_cents])).toEqual([
      ['2023-000233', 'assignment', null],
      ['2021-001878', 'mortgage', 48960000],
    ]);
    expect(m.body.item[0].consideration).toMatchObject({ status: 'withheld', reason: expect.stringContaining('states no consideration') });
  });

  test('consideration in cents: a transaction stating none is indeterminate, never dropped', async () => {
    const big = await T('&consideration[gte]=50000000');
    const outcome = Object.fromEntries(big.body.item.map((i: J) => [i.instrument.number, i.filter_outcome]));
    expect(outcome).toEqual({ '2021-001877': 'match', '2022-000950': 'match', '2025-000901': 'match', '2025-001600': 'match', '2026-000480': 'match', '2023-000233': 'indeterminate' });
    expect(big.body.page.indeterminate).toBe(1);
    expect(numbers((await T('&consideration[gte]=50000000&filter_indeterminate=exclude')).body)).toEqual(['2026-000480', '2025-001600', '2025-000901', '2022-000950', '2021-001877']);
    // the nominal transfers: $1 and $0 (the $10 deed is 1000 cents)
    const nominal = await T('&consideration[lte]=100&filter_indeterminate=exclude');
    expect(nominal.body.item.map((i: J) => [i.instrument.number, i.consideration.amount_cents, i.nominal])).toEqual([
      ['2025-000310', 0, true],
      ['2019-000412', 100, true],
    ]);
    const exact = await T('&consideration[gte]=210000000&consideration[lte]=210000000&filter_indeterminate=exclude');
    expect(exact.body.item.map((i: J) => [i.instrument.number, i.property.length])).toEqual([['2025-001600', 2]]);
  });

  test('recorded dates and party names', async () => {
    expect(numbers((await T('&recorded[gte]=2025-01-01&recorded[lte]=2025-12-31')).body)).toEqual(['2025-001600', '2025-001400', '2025-000901', '2025-000310']);
    expect(numbers((await T('&recorded[gte]=2026-01-01')).body)).toEqual(['2026-000480']);
    const hale = await get(`/transaction?party_name=${encodeURIComponent('hale,  thomas j')}`);
    expect(numbers(hale.body)).toEqual(['2026-000480', '2019-000412']);
    const bank = await get(`/transaction?party_name=${encodeURIComponent('MILLBROOK CO-OPERATIVE BANK')}&jurisdiction=millbrook-ma`);
    expect(bank.body.item.map((i: J) => [i.instrument.number, i.party.find((p: J) => p.name === 'MILLBROOK CO-OPERATIVE BANK').role])).toEqual([
      ['2023-000233', 'assignor'],
      ['2021-001878', 'mortgagee'],
    ]);
    const sale = (await T('&kind=sale&recorded[gte]=2026-04-20')).body.item[0];
    expect(sale).toMatchObject({ kind: 'sale', recorded_on: '2026-04-20', sale_date: '2026-04-16', consideration: { amount_cents: 52900000, status: 'stated' }, property: [pty['1004']], parcel_key: ['2-2'] });
    expect(sale.party).toEqual([
      { name: 'HALE, THOMAS J', role: 'grantor' },
      { name: 'ROSSI, ANGELA', role: 'grantee' },
    ]);
    expect(sale.source).toMatchObject({ key: 'registry-index', kind: 'recorder_index', version: expect.stringMatching(/^ver_/) });
  });

  test('every sort walks in order with cursors, the same as SQL', async () => {
    const { rows } = await h.pool.query(`SELECT id, recorded_on::text, sale_date::text, consideration_cents::float8 AS consideration, kind FROM transaction WHERE upper_inf(known)`);
    for (const sort of ['-recorded_on', 'recorded_on', 'sale_date', 'consideration', '-consideration', 'kind']) {
      const col = sort.replace(/^-/, '');
      const want = [...rows].sort(order(col, sort.startsWith('-'))).map((r) => r.id);
      const got = await walk(`/transaction?jurisdiction=millbrook-ma&size=3&sort=${sort}`);
      expect(got.pages, sort).toBe(4);
      expect(got.items.map((i) => i.id), sort).toEqual(want);
    }
    const first = await get('/transaction?jurisdiction=millbrook-ma&size=3&sort=kind');
    const other = await get(`/transaction?jurisdiction=millbrook-ma&size=3&sort=consideration&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
    expect(other.status).toBe(422);
    expect(other.body.detail.error.code).toBe('cursor_sort_mismatch');
  });
});

describe('property lists', () => {
  test('sorts by label, land area and year built walk every page in order (SQL)', async () => {
    const { rows } = await h.pool.query(
      `SELECT id, label, (CASE land_area->>'unit' WHEN 'acre' THEN (land_area->>'value')::numeric * 43560 ELSE (land_area->>'value')::numeric END)::float8 AS land_area,
              (SELECT min((s->>'year_built')::int) FROM jsonb_array_elements(structure->'structures') s) AS year_built
         FROM property WHERE upper_inf(known)`,
    );
    expect(rows).toHaveLength(22);
    for (const sort of ['label', '-label', 'land_area', '-land_area', 'year_built', '-year_built']) {
      const want = [...rows].sort(order(sort.replace(/^-/, ''), sort.startsWith('-'))).map((r) => r.id);
      const got = await walk(`/property?jurisdiction=millbrook-ma&size=5&sort=${sort}`);
      expect(got.pages, sort).toBe(5);
      expect(got.items.map((i) => i.id), sort).toEqual(want);
    }
    const total = await get('/property?jurisdiction=millbrook-ma&size=5&total=true');
    expect(total.body.page.total).toEqual({ value: 22, relation: 'eq' });
  });

  test('distance: only from a point or geometry, nearest first', async () => {
    const r = await get('/property?point=42.621706,-71.493446&buffer=300&buffer_unit=m&sort=distance&size=200');
    expect(r.status).toBe(200);
    const d = r.body.item.map((i: J) => i.distance.value as number);
    expect(d[0]).toBe(0);
    expect(r.body.item[0].label).toBe('221 MAIN ST');
    expect([...d].sort((a, b) => a - b)).toEqual(d);
    expect(Math.max(...d)).toBeLessThanOrEqual(300 / 0.3048);
    // the same, farthest first, in pages
    const back = await walk('/property?point=42.621706,-71.493446&buffer=300&buffer_unit=m&sort=-distance&size=2');
    expect(back.items.map((i) => i.id)).toEqual([...r.body.item].reverse().map((i: J) => i.id));
    for (const qs of ['jurisdiction=millbrook-ma', `address=${encodeURIComponent('105 Main St')}`, `owner_name=${encodeURIComponent('OSEI, KWAME')}`]) {
      const refused = await get(`/property?${qs}&sort=distance`);
      expect(refused.status, qs).toBe(422);
      expect(refused.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'sort' });
    }
    // the POST form carries the geometry in the body, with the same answer as the query
    const g = { type: 'Polygon', coordinates: [[[-71.4945, 42.621], [-71.4925, 42.621], [-71.4925, 42.6225], [-71.4945, 42.6225], [-71.4945, 42.621]]] };
    const posted = await call(server, 'POST', '/property?sort=distance', { key, body: { geometry: g } });
    const queried = await get(`/property?sort=distance&geometry=${encodeURIComponent(JSON.stringify(g))}`);
    expect(posted.status).toBe(200);
    expect(posted.body.item.length).toBeGreaterThan(0);
    expect(posted.body.item.map((i: J) => i.id)).toEqual(queried.body.item.map((i: J) => i.id));
  });

  test('use_raw and filters; a row a filter cannot evaluate is indeterminate', async () => {
    expect(labels((await get('/property?jurisdiction=millbrook-ma&use_raw=102')).body)).toEqual(['210 MAIN ST #1', '210 MAIN ST #2']);
    const old = await get('/property?jurisdiction=millbrook-ma&filter[year_built][lt]=1920&size=50');
    const outcome = Object.fromEntries(old.body.item.map((i: J) => [i.account_key, i.filter_outcome]));
    expect(outcome).toEqual({ '1001': 'indeterminate', '1022': 'indeterminate', '1004': 'match', '1005': 'match', '1009': 'match', '1011': 'match', '1014': 'match', '1015': 'match', '1017': 'match' });
    expect(old.body.page.indeterminate).toBe(2);
    const only = await get('/property?jurisdiction=millbrook-ma&filter[year_built][lt]=1920&filter_indeterminate=only');
    expect(labels(only.body)).toEqual(['12 ORCHARD LN', '320 MAIN ST']);
    const bad = await get('/property?jurisdiction=millbrook-ma&filter[owner][eq]=x');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error.code).toBe('field_unknown');
  });
});

describe('withheld values carry reasons', () => {
  const one = async (account: string) => (await get(`/property/${pty[account]}?include=assessment,tax,ownership,structure`)).body.item;

  test('the roll’s blanks and placeholders (EXPECTED.md) are withheld with why, never estimated', async () => {
    const vacant = await one('1001');
    expect(vacant.assessment.withheld).toEqual([{ field: 'building_value_cents', reason: expect.stringContaining('states no value for this account') }]);
    expect(vacant.assessment.building_value_cents).toBeNull();
    expect(vacant.structure).toMatchObject({ status: 'withheld', item: [], reason: expect.stringContaining('describes no building') });
    expect(vacant.ownership.last_sale).toMatchObject({ status: 'withheld' });
    const zero = await one('1002');
    expect(zero.ownership.last_sale).toMatchObject({ kind: 'transfer', consideration_cents: null, sale_date: '2025-03-07', withheld: [{ field: 'consideration_cents' }] });
    const condo = await one('1014');
    expect(condo.land_area).toMatchObject({ status: 'withheld', reason: expect.any(String) });
    expect(condo.assessment.withheld.map((w: J) => w.field)).toEqual(['land_value_cents']);
    const shop = await one('1016');
    expect(shop.structure.item[0].withheld.map((w: J) => w.field)).toEqual(['bedrooms', 'full_baths', 'half_baths']);
    expect(shop.structure.item[0]).not.toHaveProperty('rooms'); // a column the roll does not have is absent
    // across every property: a null value is always named in withheld with a reason
    for (const account of Object.keys(pty)) {
      const p = await one(account);
      for (const s of [p.assessment, p.tax, p.ownership, ...p.structure.item]) {
        const named = new Set((s.withheld ?? []).map((w: J) => w.field));
        for (const [k, v] of Object.entries(s)) if (v === null) expect(named.has(k) || s.status === 'withheld', `${account} ${k}`).toBe(true);
        for (const w of s.withheld ?? []) expect(w.reason.length).toBeGreaterThan(20);
      }
    }
  });
});

describe('refusals', () => {
  test('scopes, ids, sorts and parameters that cannot be answered', async () => {
    const cases: Array<[string, number, string, string]> = [
      ['/property?jurisdiction=millbrook-ma&county=25017', 422, 'parameter_invalid', 'county'],
      [`/property?point=42.621706,-71.493446&jurisdiction=millbrook-ma`, 422, 'parameter_invalid', 'jurisdiction'],
      ['/property?use_raw=101', 422, 'parameter_invalid', 'owner_name'],
      ['/property/pty_0000000000000000', 404, 'no_such_resource', 'property'],
      ['/property/pty_bad', 422, 'id_malformed', 'property'],
      ['/property?jurisdiction=millbrook-ma&include=deed', 422, 'vocabulary_value_unknown', 'include'],
      ['/transaction?jurisdiction=millbrook-ma&state=MA', 422, 'parameter_invalid', 'state'],
      ['/transaction?kind=sale', 422, 'parameter_invalid', 'jurisdiction'],
      ['/transaction?property=pty_0000000000000000', 422, 'parameter_invalid', 'property'],
      ['/transaction?property=prc_0000000000000000', 422, 'id_malformed', 'property[0]'],
      ['/transaction?jurisdiction=millbrook-ma&consideration[gte]=12.5', 422, 'parameter_invalid', 'consideration[gte]'],
      ['/transaction?jurisdiction=millbrook-ma&sort=price', 422, 'field_unknown', 'sort'],
    ];
    for (const [path, status, code, field] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(status);
      expect(r.body.detail.error, path).toMatchObject({ code, field });
    }
    // dry_run prices and scopes: the same refusals, and a price for what it can answer
    expect((await get('/property?jurisdiction=millbrook-ma&county=25017&dry_run=true')).status).toBe(422);
    const priced = await get('/transaction?jurisdiction=millbrook-ma&dry_run=true');
    expect(priced.body.meta.cost_estimate).toBe(1);
  });

  test('a location too coarse names no parcel; strict=true refuses it', async () => {
    const street = await get(`/property?address=${encodeURIComponent('Main St')}`);
    expect(street.status).toBe(200);
    expect(street.body.item).toEqual([]);
    expect(street.body.resolution.state).toBe('insufficient_precision');
    expect(street.body.layer[0].reason).toMatch(/no parcel is guessed/);
    expect((await get(`/property?address=${encodeURIComponent('Main St')}&strict=true`)).status).toBe(422);
  });
});

describe('/place?include=property', () => {
  test('embeds the properties /property lists for the same place', async () => {
    for (const key4 of ['4-22', '2-2', '6-1']) {
      const place = await get(`/place?parcel=${prc[key4]}&include=property`);
      const list = await get(`/property?parcel=${prc[key4]}`);
      expect(place.status).toBe(200);
      expect(place.body.item.property.length, key4).toBeGreaterThan(0);
      expect(place.body.item.property.map((p: J) => p.id).sort()).toEqual(list.body.item.map((p: J) => p.id).sort());
    }
  });
});
