// GET /permission over real data: Somerville's zoning ordinance (its use tables, read through the
// pipeline), checked against plain SQL over the permission table; and the synthetic town, ingested
// as v1 then v2, for the rule for unlisted uses, broader uses and an interval across the amendment.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase, type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers and rows as JSON
type Item = Record<string, any>;
const RANK = `array_position(ARRAY['by_right','permitted_with_standards','administrative_approval','conditional_use','prohibited'], p.level)`;

interface Api {
  server: RunningServer;
  get: (path: string) => ReturnType<typeof call>;
  sql: (text: string, params?: unknown[]) => Promise<Item[]>;
}

async function api(url: string): Promise<Api & { key: string }> {
  const server = await startTestServer({ DATABASE_URL: url, RATE_LIMIT_PER_SECOND: '100000' });
  const { apiKey } = await createTestOrg(server, 100_000);
  return { server, key: apiKey, get: (path) => call(server, 'GET', path, { key: apiKey }), sql: async (text, params) => (await server.services.pool.query(text, params)).rows };
}

/** Every page of a walk: the items in order and the page blocks. */
async function walk(a: Api, path: string) {
  const items: Item[] = [];
  const pages: Item[] = [];
  let cursor: string | null = null;
  do {
    const r = await a.get(cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : path);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    items.push(...r.body.item);
    pages.push(r.body.page);
    cursor = r.body.page.next_cursor;
  } while (cursor && pages.length < 100);
  return { items, pages };
}

/** Each citation's quote is in the text of its retained version, at its offsets (compared here: one read of each text). */
async function verbatim(a: Api, citations: Array<{ id: string; quote: string; version: string }>) {
  const ids = [...new Set(citations.map((c) => c.id))];
  expect(ids.length).toBeGreaterThan(0);
  const rows = await a.sql(`SELECT id, quote, version_id, locator FROM citation WHERE id = ANY($1)`, [ids]);
  expect(rows.length).toBe(ids.length);
  const texts = new Map<string, string[]>();
  for (const t of await a.sql(`SELECT version_id, text FROM version_text WHERE version_id = ANY($1)`, [[...new Set(rows.map((r) => r.version_id))]])) texts.set(t.version_id, Array.from(t.text as string));
  for (const r of rows) {
    const text = texts.get(r.version_id)!;
    // offsets count characters, as PostgreSQL does
    expect(text.slice(r.locator.start, r.locator.end).join(''), r.id).toBe(r.quote);
    const served = citations.find((c) => c.id === r.id)!;
    expect([served.quote, served.version]).toEqual([r.quote, r.version_id]);
  }
}

const citationsOf = (items: Item[]) => items.flatMap((i) => [i.citation, ...i.cell.map((c: Item) => c.citation), i.indeterminate?.unlisted_uses?.citation].filter(Boolean));

describe('Somerville: the use tables of the zoning ordinance', () => {
  let db: { url: string; drop: () => Promise<void> };
  let s: Api & { key: string };
  const J = 'jurisdiction=somerville-ma';

  /** District code → the most permissive level rank its stated cells give a use (and how many levels they state), in force now. */
  const expected = async (slugs: string[]) =>
    s.sql(
      `SELECT d.code_normalized AS code, p.use_slug AS slug, min(${RANK}) AS rank, count(DISTINCT p.level) AS levels
         FROM permission p JOIN (SELECT DISTINCT id, code_normalized FROM district WHERE upper_inf(known) AND upper_inf(valid)) d ON d.id = p.district_id
        WHERE upper_inf(p.known) AND upper_inf(p.valid) AND p.status <> 'withheld' AND p.use_slug = ANY($1)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [slugs],
    );

  beforeAll(async () => {
    db = await ingestedDatabase('somerville', ['somerville-ma']);
    s = await api(db.url);
  }, 600_000);
  afterAll(async () => {
    await s?.server.close();
    await db?.drop();
  });

  test('a use by right: every district whose cells state it by right, as the permission table says, each cited and dated', async () => {
    const slug = 'commercial.arts.artisanal_production';
    const r = await s.get(`/permission?use=${slug}&${J}&level=by_right&size=200`);
    expect(r.status).toBe(200);
    const want = (await expected([slug])).filter((x) => x.rank === 1);
    expect(want.length).toBeGreaterThan(5);
    expect(r.body.item.map((i: Item) => i.district_code)).toEqual(want.map((x) => x.code));
    for (const i of r.body.item) {
      const w = want.find((x) => x.code === i.district_code)!;
      expect(i).toMatchObject({ level: 'by_right', level_rank: 1, filter_outcome: 'match', status: w.levels > 1 ? 'conflicting' : 'stated', use: { slug, match: 'exact', via: [slug] } });
      expect(i.id).toMatch(/^prm_/);
      expect(i.district).toMatch(/^dst_/);
      expect(i.jurisdiction).toMatchObject({ slug: 'somerville-ma', name: 'Somerville' });
      expect(i.effective_from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // the item's citation is one of its cells', a cell stating by right
      const by = i.cell.filter((c: Item) => c.level === 'by_right');
      expect(by.map((c: Item) => c.citation.id)).toContain(i.citation.id);
      for (const c of i.cell) expect(c.use).toBe(slug);
    }
    await verbatim(s, citationsOf(r.body.item));
    expect(r.body.coverage).toMatchObject({ scope: { kind: 'jurisdiction', jurisdiction_count: 1 }, answered: 1, not_answered: 0, jurisdiction: [{ name: 'Somerville', layer: { zoning_text: { held: true } } }] });
    expect(r.body.layer).toEqual([]);
  });

  test('level filters on the most permissive level the cells state; prohibited is never listed', async () => {
    const slug = 'commercial.service.kennel';
    const want = await expected([slug]);
    for (const [level, rank] of [['conditional_use', 4], ['by_right', 1]] as const) {
      const r = await s.get(`/permission?use=${slug}&${J}&level=${level}&size=200`);
      expect(r.status).toBe(200);
      expect(r.body.item.map((i: Item) => i.district_code)).toEqual(want.filter((x) => x.rank === rank).map((x) => x.code));
    }
    const all = await s.get(`/permission?use=${slug}&${J}&size=200`);
    expect(all.body.item.map((i: Item) => i.district_code)).toEqual(want.filter((x) => x.rank <= 4).map((x) => x.code));
    expect(want.some((x) => x.rank === 5)).toBe(true);
  });

  test('a parent slug matches its narrower uses and says so; a use_ id is the same use', async () => {
    const r = await s.get(`/permission?use=commercial.arts&${J}&size=200`);
    expect(r.status).toBe(200);
    const terms = await s.sql(`SELECT slug, id FROM use_term WHERE slug = 'commercial.arts' OR slug LIKE 'commercial.arts.%'`);
    const want = (await expected(terms.map((t) => t.slug))).filter((x) => x.rank <= 4);
    const got = r.body.item.map((i: Item) => [i.district_code, i.use.slug]);
    expect(got).toEqual(want.map((x) => [x.code, x.slug]));
    for (const i of r.body.item) expect(i.use).toMatchObject({ via: ['commercial.arts'], match: i.use.slug === 'commercial.arts' ? 'exact' : 'narrower' });
    const byId = await s.get(`/permission?use=${terms.find((t) => t.slug === 'commercial.arts')!.id}&${J}&size=200`);
    expect(byId.body.item.map((i: Item) => i.id)).toEqual(r.body.item.map((i: Item) => i.id));
  });

  test('every sort of the table orders the same rows, a jurisdiction rows kept together', async () => {
    const base = `/permission?use=commercial.food_service&${J}&size=200`;
    const plain = (await s.get(base)).body.item as Item[];
    expect(plain.length).toBeGreaterThan(10);
    const ids = plain.map((i) => i.id).sort();
    const cmp = (a: unknown, b: unknown) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : (a as string | number) < (b as string | number) ? -1 : 1);
    const checks: Array<[string, (i: Item) => unknown, boolean]> = [
      ['-district.code_normalized', (i) => i.district_code, true],
      ['level_rank', (i) => i.level_rank, false],
      ['-effective_from', (i) => i.effective_from, true],
      ['jurisdiction.population', () => 81045, false],
      ['coverage_tier', () => 'full', false],
      ['jurisdiction.name', (i) => i.jurisdiction.name, false],
    ];
    for (const [sort, key, desc] of checks) {
      const r = await s.get(`${base}&sort=${sort}`);
      expect(r.status, sort).toBe(200);
      const items = r.body.item as Item[];
      expect(items.map((i) => i.id).sort(), sort).toEqual(ids);
      for (let k = 1; k < items.length; k++) {
        const c = cmp(key(items[k - 1]), key(items[k]));
        expect(desc ? c >= 0 : c <= 0, `${sort} at ${k}`).toBe(true);
        // ties fall back to district code, then the row
        if (c === 0) expect(items[k - 1].district_code <= items[k].district_code, `${sort} tie at ${k}`).toBe(true);
      }
    }
    const codes = plain.map((i) => i.district_code);
    expect(codes).toEqual([...codes].sort());
  });

  test('paging: cursors walk the same rows as one page, total counts them, page.indeterminate sums to the undecided total', async () => {
    const path = `/permission?use=commercial.retail&${J}&sort=level_rank`;
    const one = await s.get(`${path}&size=200&total=true`);
    expect(one.status).toBe(200);
    expect(one.body.page.next_cursor).toBeNull();
    const { items, pages } = await walk(s, `${path}&size=7&total=true`);
    expect(pages.length).toBeGreaterThan(2);
    expect(items.map((i) => i.id)).toEqual(one.body.item.map((i: Item) => i.id));
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(pages[0].total).toEqual({ value: items.length, relation: 'eq' });
    expect(pages.slice(1).every((p) => p.total === undefined)).toBe(true);
    const undecided = pages.reduce((n, p) => n + p.indeterminate, 0);
    expect(undecided).toBe(pages[0].total_indeterminate.value);
    expect(undecided).toBe(one.body.page.indeterminate);
    const only = await walk(s, `${path}&size=5&filter_indeterminate=only`);
    expect(only.items.length).toBe(undecided);
    // a cursor belongs to its sort and its question
    const cursor = encodeURIComponent(pages[0].next_cursor);
    const other = await s.get(`/permission?use=commercial.retail&${J}&size=7&sort=-district.code_normalized&cursor=${cursor}`);
    expect(other.status).toBe(422);
    expect(other.body.detail.error.code).toBe('cursor_sort_mismatch');
    const otherUse = await s.get(`/permission?use=commercial.arts&${J}&size=7&sort=level_rank&cursor=${cursor}`);
    expect(otherUse.status).toBe(422);
    expect(otherUse.body.detail.error.field).toBe('cursor');
  });

  test('districts the use tables cannot decide: counted by default, shown when asked, each with why', async () => {
    const slug = 'commercial.retail.cannabis';
    const base = `/permission?use=${slug}&${J}&size=200`;
    // base districts in force with no cell (stated or not) for the use or a narrower one
    const silent = await s.sql(
      `SELECT d.code_normalized AS code, EXISTS (SELECT 1 FROM permission p WHERE p.district_id = d.id AND upper_inf(p.known) AND upper_inf(p.valid)) AS has_table
         FROM (SELECT DISTINCT id, code_normalized FROM district WHERE kind = 'base' AND upper_inf(known) AND upper_inf(valid)) d
        WHERE NOT EXISTS (SELECT 1 FROM permission p WHERE p.district_id = d.id AND upper_inf(p.known) AND upper_inf(p.valid) AND (p.use_slug = $1 OR p.use_slug LIKE $1 || '.%'))
        ORDER BY 1`,
      [slug],
    );
    expect(silent.filter((x) => x.has_table).length).toBeGreaterThan(0);
    expect(silent.filter((x) => !x.has_table).map((x) => x.code)).toEqual(['NP', 'TU']);
    const counted = await s.get(base);
    expect(counted.body.item.every((i: Item) => i.filter_outcome === 'match')).toBe(true);
    expect(counted.body.page.indeterminate).toBe(silent.length);
    const shown = await s.get(`${base}&filter_indeterminate=include`);
    const undecided = shown.body.item.filter((i: Item) => i.filter_outcome === 'indeterminate');
    expect(undecided.map((i: Item) => i.district_code)).toEqual(silent.map((x) => x.code));
    expect(shown.body.page.indeterminate).toBe(silent.length);
    expect(shown.body.item.filter((i: Item) => i.filter_outcome === 'match').map((i: Item) => i.id)).toEqual(counted.body.item.map((i: Item) => i.id));
    for (const i of undecided) {
      const why = silent.find((x) => x.code === i.district_code)!;
      expect(i).toMatchObject({ level: null, level_rank: null, status: 'withheld', binds: null, cell: [], indeterminate: { reason: why.has_table ? 'not_listed' : 'no_use_table' } });
      // the code's rule for unlisted uses, cited: "Use Categories that are not identified ... are prohibited"
      expect(i.indeterminate.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { id: expect.stringMatching(/^cit_/) } });
    }
    const listed = undecided.find((i: Item) => i.indeterminate.reason === 'not_listed')!;
    const unmapped = await s.sql(
      `SELECT count(DISTINCT use_label_raw)::int AS n FROM permission WHERE district_id = $1 AND use_slug IS NULL AND upper_inf(known) AND upper_inf(valid)`,
      [listed.district],
    );
    expect(listed.indeterminate.unmapped_label_count).toBe(unmapped[0].n);
    await verbatim(s, citationsOf(undecided));
    const same = await s.get(`${base}&include_unknown=true`);
    expect(same.body.item.map((i: Item) => i.id)).toEqual(shown.body.item.map((i: Item) => i.id));
    const only = await s.get(`${base}&filter_indeterminate=only`);
    expect(only.body.item.map((i: Item) => i.id)).toEqual(undecided.map((i: Item) => i.id));
    const clash = await s.get(`${base}&filter_indeterminate=include&include_unknown=false`);
    expect(clash.status).toBe(422);
  });

  test('filter: on the row fields, a row it cannot evaluate is indeterminate, an unknown field is 422', async () => {
    const r = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&size=200&filter[district.code_normalized][prefix]=MR`);
    expect(r.status).toBe(200);
    expect(r.body.item.length).toBeGreaterThan(0);
    expect(r.body.item.every((i: Item) => i.district_code.startsWith('MR') && i.filter_outcome === 'match')).toBe(true);
    const bad = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&filter[parcel][eq]=x`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error.code).toBe('field_unknown');
  });

  test('include: the district controls in force, cited, and its composition', async () => {
    const r = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&size=3&include=control,composition`);
    expect(r.status).toBe(200);
    for (const i of r.body.item) {
      const held = await s.sql(`SELECT id FROM control WHERE district_id = $1 AND upper_inf(known) AND upper_inf(valid) ORDER BY id`, [i.district]);
      expect(i.control.map((c: Item) => c.id).sort()).toEqual(held.map((h) => h.id));
      expect(i.control.length).toBeGreaterThan(0);
      for (const c of i.control) expect(c.citation.id).toMatch(/^cit_/);
      expect(i.composition.precedence).toHaveProperty('rank');
      expect(i.composition.overlay).toEqual(i.supersession_risk.overlay);
    }
    await verbatim(s, r.body.item.flatMap((i: Item) => i.control.map((c: Item) => c.citation)));
    const plain = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&size=3`);
    expect(plain.body.item[0].control).toBeUndefined();
  }, 30_000);

  test('scopes: a state names what cannot be answered for; a scope holding nothing is an empty 200 saying why; two scopes are 422', async () => {
    const ma = await s.get('/permission?use=commercial.food_service.restaurant&state=MA&size=200');
    expect(ma.status).toBe(200);
    expect(new Set(ma.body.item.map((i: Item) => i.jurisdiction.name))).toEqual(new Set(['Somerville']));
    const names = ma.body.layer.map((l: Item) => l.jurisdiction.name).sort();
    expect(names).toEqual(['Massachusetts', 'Middlesex County']);
    for (const l of ma.body.layer) expect(l).toMatchObject({ layer: 'zoning_text', held: false, reason: expect.stringMatching(/^No zoning text of .+ is held\.$/) });
    expect(ma.body.coverage).toMatchObject({ scope: { kind: 'state', jurisdiction_count: 3 }, answered: 1, not_answered: 2 });
    const none = await s.get('/permission?use=commercial.food_service.restaurant&state=WY');
    expect(none.status).toBe(200);
    expect(none.body.item).toEqual([]);
    expect(none.body.layer).toEqual([]);
    expect(none.body.coverage).toMatchObject({ scope: { kind: 'state', jurisdiction_count: 0 }, answered: 0, reason: expect.stringContaining('No jurisdiction held') });
    expect(none.body.meta.cost).toBe('0');
    // a date before anything held: Somerville is named, with why
    const early = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&as_of=2001-01-01`);
    expect(early.status).toBe(200);
    expect(early.body.item).toEqual([]);
    expect(early.body.layer).toEqual([expect.objectContaining({ held: true, reason: expect.stringContaining('in force on 2001-01-01') })]);
    const two = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&state=MA`);
    expect(two.status).toBe(422);
    expect(two.body.detail.error.code).toBe('parameter_invalid');
    expect(two.body.detail.error.detail).toMatch(/one scope/);
  });

  test('bad input: an unknown use is 422 naming use; a bad level, sort or missing use likewise refused', async () => {
    const unknown = await s.get(`/permission?use=commercial.food_service.restaurant&use=residential.spaceship&${J}`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
    expect(unknown.body.detail.error.detail).toContain('residential.spaceship');
    const missing = await s.get(`/permission?${J}`);
    expect(missing.status).toBe(422);
    expect(missing.body.detail.error.field).toBe('use');
    const level = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&level=prohibited`);
    expect(level.status).toBe(422);
    expect(level.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'level' });
    const sort = await s.get(`/permission?use=commercial.food_service.restaurant&${J}&sort=parcel`);
    expect(sort.body.detail.error.code).toBe('field_unknown');
    const noScope = await s.get('/permission?use=commercial.food_service.restaurant');
    expect(noScope.status).toBe(422);
  });

  test('dry_run prices a page and scopes it without answering', async () => {
    const r = await s.get(`/permission?use=commercial.food_service.restaurant&state=MA&dry_run=true`);
    expect(r.status).toBe(200);
    expect(r.body.meta.cost_estimate).toBe(1);
    expect(r.body.item).toMatchObject({ scope: { kind: 'state', jurisdiction_count: 3 }, answered: 1, not_answered: 2, use: ['commercial.food_service.restaurant'] });
    const page = await s.get(`/permission?use=commercial.food_service.restaurant&state=MA`);
    expect(page.body.meta.cost).toBe('1');
  });
});

describe('the synthetic town, v1 then v2', () => {
  let site: SyntheticSite;
  let h: PipelineHarness;
  let t: Api & { key: string };
  const J = 'jurisdiction=millbrook-ma';

  beforeAll(async () => {
    site = await startSyntheticSite({ version: 1 });
    h = await pipelineHarness('permission_town', { manifestDir: await syntheticManifests(site.url) });
    await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
    site.setVersion(2);
    await h.ingest(['millbrook-ma'], { now: new Date('2026-04-21T12:00:00Z') });
    t = await api(h.url);
  }, 300_000);
  afterAll(async () => {
    await t?.server.close();
    await h?.close();
    await site?.close();
  });

  test('Table 4.1 as printed: single-family by right in R-1 and R-2, by special permit in VC, not in I-1', async () => {
    const r = await t.get(`/permission?use=residential.dwelling.single_family&${J}`);
    expect(r.status).toBe(200);
    expect(r.body.item.map((i: Item) => [i.district_code, i.level, i.cell.map((c: Item) => c.symbol).join()])).toEqual([
      ['R-1', 'by_right', 'P'],
      ['R-2', 'by_right', 'P'],
      ['VC', 'conditional_use', 'SP'],
    ]);
    expect(r.body.page.indeterminate).toBe(0);
    for (const i of r.body.item) expect(i.citation.quote).toContain('Single-family dwelling');
    await verbatim(t, citationsOf(r.body.item));
    const byRight = await t.get(`/permission?use=residential.dwelling&${J}&level=by_right`);
    expect(byRight.body.item.map((i: Item) => `${i.district_code} ${i.use.slug} ${i.use.match}`)).toEqual([
      'R-1 residential.dwelling.accessory_unit narrower',
      'R-1 residential.dwelling.single_family narrower',
      'R-2 residential.dwelling.accessory_unit narrower',
      'R-2 residential.dwelling.single_family narrower',
      'R-2 residential.dwelling.two_family narrower',
      'VC residential.dwelling.accessory_unit narrower',
    ]);
  });

  test('a use Table 4.1 does not list: every district undecided, with 4.2 (not permitted in any district) and the broader use it may fall under', async () => {
    const r = await t.get(`/permission?use=commercial.retail.grocery&${J}&filter_indeterminate=include`);
    expect(r.status).toBe(200);
    expect(r.body.item.map((i: Item) => [i.district_code, i.filter_outcome, i.indeterminate.reason])).toEqual([
      ['I-1', 'indeterminate', 'not_listed'],
      ['R-1', 'indeterminate', 'not_listed'],
      ['R-2', 'indeterminate', 'not_listed'],
      ['VC', 'indeterminate', 'not_listed'],
    ]);
    for (const i of r.body.item) {
      expect(i.indeterminate.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { quote: expect.stringContaining('is not permitted in any district') } });
      expect(i.indeterminate.broader.map((c: Item) => [c.label, c.use])).toEqual([['Retail store', 'commercial.retail']]);
    }
    expect(r.body.item.find((i: Item) => i.district_code === 'VC').indeterminate.broader[0].symbol).toBe('P');
    await verbatim(t, [...citationsOf(r.body.item), ...r.body.item.map((i: Item) => i.indeterminate.broader[0].citation)]);
    const counted = await t.get(`/permission?use=commercial.retail.grocery&${J}`);
    expect(counted.body).toMatchObject({ item: [], page: { indeterminate: 4 } });
    expect(counted.body.meta.cost).toBe('0');
  });

  test('an interval across the v2 amendments: the use tables did not change, so each row is one segment', async () => {
    const r = await t.get(`/permission?use=residential.dwelling.two_family&${J}&as_of=from:2026-03-10%20to:2026-06-30`);
    expect(r.status).toBe(200);
    expect(r.body.item.map((i: Item) => i.district_code)).toEqual(['R-2', 'VC']);
    for (const i of r.body.item) {
      expect(i.constant).toBe(true);
      expect(i.segment).toHaveLength(1);
      expect(i.segment[0]).toMatchObject({ to: '2026-06-30', permission: { level: i.level, status: 'stated' } });
      expect(i.segment[0].from).toBe('2026-03-10');
    }
    expect(r.body.as_of).toMatchObject({ constant: true, segment_count: 1 });
    expect(r.body.notice).toBeUndefined();
    // as the service knew it before the first load, nothing answered: the town is named with why
    const before = await t.get(`/permission?use=residential.dwelling.two_family&${J}&known_as_of=2026-03-01`);
    expect(before.status).toBe(200);
    expect(before.body.item).toEqual([]);
    expect(before.body.layer).toEqual([expect.objectContaining({ reason: expect.stringContaining('was held as known at') })]);
  });
});
