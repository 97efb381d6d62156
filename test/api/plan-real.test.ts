// GET /jurisdiction/{id}/plan over real data: Somerville's zoning text names the plans it follows
// (quoted and cited); Cambridge holds no code text and no plan map, and the refusal says so.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, cambridgeApi, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
let drop: () => Promise<void>;
let cambridge: Awaited<ReturnType<typeof cambridgeApi>>;
const get = (path: string) => call(server, 'GET', path, { key });
const sql = async (text: string, params?: unknown[]) => (await server.services.pool.query(text, params)).rows;

beforeAll(async () => {
  const db = await ingestedDatabase('somerville', ['somerville-ma']);
  drop = db.drop;
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  cambridge = await cambridgeApi(100_000);
}, 600_000);
afterAll(async () => {
  await server?.close();
  await drop?.();
  await cambridge?.close();
});

type Passage = { text: string; section_ref: string; citation: { section_ref: string; href: string } | null };
type Plan = Record<string, any>;
const byName = (items: Plan[], name: string) => items.find((p) => p.name === name)!;

describe('Somerville: the plans its zoning text names', () => {
  test('the Comprehensive Plan, SomerVision, the Assembly Square Plan and the Union Square plans, and no procedural plan', async () => {
    const r = await get('/jurisdiction/somerville-ma/plan');
    expect(r.status).toBe(200);
    const names = r.body.item.map((p: Plan) => p.name);
    expect(names).toEqual(expect.arrayContaining(['Comprehensive Plan', 'SomerVision', 'Assembly Square Plan', '2003 Union Square Master Plan', '2012 Union Square Revitalization Plan', '2016 Union Square Neighborhood Plan']));
    // permit steps and a development's master plan are not plans the code follows; nor is "a Revitalization Plan"
    for (const n of names) expect(n).not.toMatch(/^(Site Plan|Subdivision Plan|Master Plan|Mobility Management Plan|Implementation Plan|Revitalization Plan)$/);
    expect(r.body.coverage.layer.zoning_text).toMatchObject({ held: true });
    expect(r.body.as_of.resolved).toBeDefined();
    expect(r.body.page).toEqual({ size: names.length, next_cursor: null });
  });

  test('the Comprehensive Plan: defined, the code implements it and must be consistent with it, approved by the Planning Board, no adoption date stated', async () => {
    const r = await get('/jurisdiction/somerville-ma/plan');
    const p = byName(r.body.item, 'Comprehensive Plan');
    expect(p.basis).toBe('code_text');
    expect(p.definition.passage.map((x: Passage) => x.text)).toEqual([
      "The City of Somerville's official plan providing guidance and direction for future decision making that affects local government policy and community development as approved by the Planning Board per M.G.L. 41, 81d.",
    ]);
    expect(p.mention.map((x: Passage) => `${x.section_ref}: ${x.text}`)).toEqual(expect.arrayContaining([
      '1.1.4: To implement the Comprehensive Plan of the City of Somerville and enforce officially adopted plans and policies.',
      '3.1.2: To implement the objectives of the Comprehensive Plan of the City of Somerville.',
    ]));
    expect(p.consistency).toMatchObject({ status: 'stated', required: true });
    expect(p.consistency.passage.map((x: Passage) => x.text)).toEqual([
      'To ensure that the limited land area of Somerville is efficiently divided into a block and lot pattern consistent with the comprehensive plan of the City of Somerville.',
      'To ensure that off-street accessory parking for motor vehicles is provided in a manner consistent with the objectives and policies of the comprehensive plan of the City of Somerville.',
    ]);
    expect(p.adopted_by.map((b: { body: string }) => b.body)).toEqual(['Planning Board']);
    // no sentence dates it: the date is withheld, with why, and never made up
    expect(p.adopted_on).toEqual({ status: 'withheld', passage: [], reason: expect.stringMatching(/^No sentence of the code text held for Somerville in force on \d{4}-\d{2}-\d{2} naming the Comprehensive Plan states when it was adopted\.$/) });
  });

  test('the Assembly Square Plan is also the ASQ Plan; SomerVision has no consistency sentence, and that is withheld with why', async () => {
    const r = await get('/jurisdiction/somerville-ma/plan');
    const asq = byName(r.body.item, 'Assembly Square Plan');
    expect(asq.alias).toEqual(['ASQ Plan']);
    expect(asq.consistency.passage.map((x: Passage) => `${x.section_ref}: ${x.text}`)).toContain('7.4.6: The alignment and connectivity of thoroughfares must be consistent with the ASQ Plan.');
    expect(asq.definition.passage[0].text).toBe('The following documents, as amended, constitute the Assembly Square Plan:');
    const sv = byName(r.body.item, 'SomerVision');
    expect(sv.mention.map((x: Passage) => x.section_ref)).toEqual(['7.4.2', '8.1.1', '8.2.1', '8.4.1', '8.4.1']);
    expect(sv.consistency).toMatchObject({ status: 'withheld', reason: expect.stringContaining('requires consistency or conformance with SomerVision.') });
  });

  test('every passage is a sentence of its section as held, cited to that section', async () => {
    const r = await get('/jurisdiction/somerville-ma/plan');
    const rows = await sql(`SELECT ref, body FROM section WHERE upper_inf(known) AND valid @> current_date`);
    const body = new Map(rows.map((x) => [x.ref, x.body as string]));
    let n = 0;
    for (const p of r.body.item as Plan[]) {
      for (const x of [...p.definition.passage, ...p.mention] as Passage[]) {
        expect(body.get(x.section_ref)).toContain(x.text);
        expect(x.citation).toMatchObject({ section_ref: x.section_ref, href: expect.stringMatching(/^\/citation\/cit_/) });
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  });

  test('a future land use map version held is listed beside the code text plans, with its dates and document, in force only from its date', async () => {
    const j = (await sql(`SELECT id FROM jurisdiction WHERE slug = 'somerville-ma'`))[0].id;
    await sql(
      `INSERT INTO document (id, jurisdiction_id, title, doc_type, media_type, url_canonical, first_retrieved_at, last_retrieved_at)
       VALUES ('doc_flutest', $1, 'SomerVision Future Land Use Map', 'map', 'application/geo+json', 'https://example.org/flu.geojson', now(), now())`,
      [j],
    );
    await sql(
      `INSERT INTO map_version (id, jurisdiction_id, layer, document_id, feature_count, geometry_sha256, effective_from, known)
       VALUES ('map_flu1', $1, 'future_land_use', 'doc_flutest', 3, repeat('0', 64), '2012-04-19', tstzrange(now() - interval '1 day', NULL)),
              ('map_flu2', $1, 'future_land_use', 'doc_flutest', 4, repeat('1', 64), '2020-01-01', tstzrange(now() - interval '1 day', NULL))`,
      [j],
    );
    const old = await get('/jurisdiction/somerville-ma/plan?as_of=2015-06-01');
    // the code text is not in force then; the map's first version is
    expect(old.status).toBe(200);
    expect(old.body.item).toEqual([
      {
        name: 'SomerVision Future Land Use Map', basis: 'future_land_use_map', map_version: 'map_flu1', effective_from: '2012-04-19', effective_through: '2020-01-01',
        effective_basis: 'stated', adopted_on: null, feature_count: 3, version: null,
        document: { id: 'doc_flutest', title: 'SomerVision Future Land Use Map', url: 'https://example.org/flu.geojson', href: '/document/doc_flutest' },
      },
    ]);
    const now = await get('/jurisdiction/somerville-ma/plan');
    const maps = now.body.item.filter((p: Plan) => p.basis === 'future_land_use_map');
    expect(maps.map((m: Plan) => [m.map_version, m.effective_from, m.effective_through])).toEqual([['map_flu2', '2020-01-01', null]]);
    expect(now.body.item.some((p: Plan) => p.name === 'Comprehensive Plan')).toBe(true);
    const before = await get('/jurisdiction/somerville-ma/plan?as_of=2000-01-01');
    expect(before.status).toBe(501);
    expect(before.body.detail.error.detail).toMatch(/is in force from \d{4}-\d{2}-\d{2}; not on 2000-01-01\. The 2 future land use map version\(s\) held for Somerville take effect from 2012-04-19; none is in force on 2000-01-01\.$/);
    // an interval: each plan in force on some day of it, with the runs over which it read the same
    const during = await get(`/jurisdiction/somerville-ma/plan?as_of=${encodeURIComponent('from:2018-01-01 to:2020-06-30')}`);
    expect(during.status).toBe(200);
    const segments = (version: string) => during.body.item.find((p: Plan) => p.basis === 'future_land_use_map' && p.segment.some((x: Plan) => x.plan?.map_version === version)).segment.map((x: Plan) => [x.from, x.to, x.plan?.map_version ?? null]);
    expect(segments('map_flu1')).toEqual([['2018-01-01', '2019-12-31', 'map_flu1'], ['2020-01-01', '2020-06-30', null]]);
    expect(segments('map_flu2')).toEqual([['2018-01-01', '2019-12-31', null], ['2020-01-01', '2020-06-30', 'map_flu2']]);
    // the code text's plans from the day it is in force, one run each however many facts change on other days
    const today = new Date().toISOString().slice(0, 10);
    const long = await get(`/jurisdiction/somerville-ma/plan?as_of=${encodeURIComponent(`from:2018-01-01 to:${today}`)}`);
    const comprehensive = byName(long.body.item, 'Comprehensive Plan').segment;
    console.log(JSON.stringify(comprehensive.map((x: Plan) => [x.from, x.to, Boolean(x.plan)])));
    expect(comprehensive.map((x: Plan) => Boolean(x.plan))).toEqual([false, true]);
    expect(byName(long.body.item, 'SomerVision Future Land Use Map').segment).toHaveLength(2);
    for (const p of long.body.item) expect(p.segment.length, p.name).toBeLessThanOrEqual(2);
    expect(comprehensive[1].plan.definition.status).toBe('stated');
    await sql(`DELETE FROM map_version WHERE document_id = 'doc_flutest'`);
    await sql(`DELETE FROM document WHERE id = 'doc_flutest'`);
  });

  test('an interval before any plan is in force is 501 with the reason; a jurisdiction naming nothing is 404', async () => {
    const r = await get(`/jurisdiction/somerville-ma/plan?as_of=${encodeURIComponent('from:1990-01-01 to:1990-12-31')}`);
    expect(r.status).toBe(501);
    expect(r.body.detail.error.detail).toMatch(/^No plan is in force on any day from 1990-01-01 to 1990-12-31: on 1990-12-31, /);
    const none = await get('/jurisdiction/no-such-town-zz/plan');
    expect(none.status).toBe(404);
  });
});

describe('Cambridge: no code text held', () => {
  test('501 not_available with the reason read from what is held of Cambridge', async () => {
    const r = await call(cambridge.server, 'GET', '/jurisdiction/cambridge-ma/plan', { key: cambridge.key });
    expect(r.status).toBe(501);
    expect(r.body.detail.error).toMatchObject({ code: 'not_available', field: 'jurisdiction' });
    expect(r.body.detail.error.detail).toMatch(/^No code text of Cambridge is held: no code_text source of it is named\. No future land use map of Cambridge is held \(as known at \S+\)\.$/);
  });
});
