// Permits, applications and cases of the synthetic town (EXPECTED.md), ingested as v1 then v2:
// GET /permit and /case across a scope, the /v1 search forms and one record by id (404 unknown,
// 501 where no feed of the kind is held), filters with indeterminate rows, paging, both knowledge
// times, and every record cited verbatim to the feed record it was read from.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, siteFile, startSyntheticSite } from '../helpers/synthetic-site.ts';

const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;

const get = (path: string) => call(server, 'GET', path, { key });
const numbers = (items: Array<{ number: string }>) => items.map((i) => i.number);
const J = 'jurisdiction=millbrook-ma';

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('permits', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

/** Numbers of the records held now, in the order SQL gives for the default sort (latest applied first). */
async function heldNumbers(where: string, params: unknown[] = []) {
  const { rows } = await h.pool.query(
    `SELECT number FROM land_record r WHERE upper_inf(known) AND (${where}) ORDER BY (body->'dates'->>'applied')::date DESC NULLS LAST, id DESC`,
    params,
  );
  return rows.map((r) => r.number as string);
}

describe('GET /permit', () => {
  test('every permit and application of v2, latest applied first, total counted, cited verbatim', async () => {
    const r = await get(`/permit?${J}&total=true&size=200`);
    expect(r.status).toBe(200);
    expect(numbers(r.body.item)).toEqual(await heldNumbers(`kind IN ('permit', 'application')`));
    expect(r.body.item).toHaveLength(7);
    expect(r.body.page).toMatchObject({ size: 7, next_cursor: null, total: { value: 7, relation: 'eq' } });
    const feed = siteFile(2, '/permits/feed.json')!.bytes.toString('utf8');
    for (const i of r.body.item) {
      expect(i.citation.quote, i.number).toBeTruthy();
      const { rows } = await h.pool.query('SELECT text FROM version_text WHERE version_id = $1', [i.citation.version]);
      expect(rows[0].text.slice(i.citation.locator.start, i.citation.locator.end)).toBe(i.citation.quote);
      expect(JSON.parse(i.citation.quote).permit_no).toBe(i.number);
      // the quote is the publisher's own characters, as served
      expect(feed).toContain(i.citation.quote);
    }
    expect(r.body.coverage).toMatchObject({ layer: ['permit'], in_scope: 1, held: 1 });
  });

  test('BP-2025-0102 finaled, field by field as the feed states it; the new permit of v2 is cited to v2', async () => {
    const r = await get(`/permit?${J}&number=bp-2025-0102`);
    const [p] = r.body.item;
    expect(p).toMatchObject({
      object: 'permit',
      number: 'BP-2025-0102',
      status: { code: 'FINALED', description: 'Finaled' },
      dates: { applied: '2025-03-03', issued: '2025-03-24', completed: '2025-08-29' },
      valuation: { amount: 85000, currency: 'USD' },
      decision: { outcome: { code: 'approved' } },
      parcels: [{ number: '2-4', id: expect.stringMatching(/^prc_/) }],
      jurisdiction: { slug: 'millbrook-ma' },
      href: `/v1/permit/${p.id}`,
    });
    expect(p.id).toBe(stableId('permit', p.jurisdiction.id, 'BP-2025-0102'));
    expect(p.document.url).toBe(`${site.url}/permits/BP-2025-0102`);
    const v2 = (await get(`/permit?${J}&number=BP-2026-0071`)).body.item[0];
    expect(v2.citation.version).not.toBe(p.citation.version);
    expect(v2).toMatchObject({ parcels: [{ number: '2-5' }], dates: { applied: '2026-03-02', issued: '2026-04-06' } });
  });

  test('object, pending, type, status and parcel narrow the list as SQL does', async () => {
    expect(numbers((await get(`/permit?${J}&object=application`)).body.item)).toEqual(['BP-2025-0299', 'BP-2025-0240']);
    const pending = (await get(`/permit?${J}&pending=true`)).body.item;
    expect(numbers(pending)).toEqual(await heldNumbers(`kind IN ('permit', 'application') AND body->'decision' = 'null'::jsonb`));
    expect(numbers(pending)).toEqual(['BP-2025-0240']);
    expect(pending[0]).toMatchObject({ object: 'application', kind: 'permit', decision: null, status: { code: 'UNDER REVIEW' } });
    expect(numbers((await get(`/permit?${J}&status=ISSUED&type=ELEC-COM`)).body.item)).toEqual(await heldNumbers(`body->'status'->>'code' = 'ISSUED' AND body->'type'->>'code' = 'ELEC-COM'`));
    const { rows } = await h.pool.query(`SELECT id FROM parcel WHERE parcel_key = '2-5'`);
    expect(numbers((await get(`/permit?parcel=${rows[0].id}`)).body.item)).toEqual(['BP-2026-0071']);
  });

  test('a date range: records stating no such date are indeterminate, shown, counted, or left out', async () => {
    const r = await get(`/permit?${J}&issued[gte]=2026-01-01&size=200`);
    const outcome = Object.fromEntries(r.body.item.map((i: { number: string; filter_outcome: string }) => [i.number, i.filter_outcome]));
    expect(outcome).toEqual({ 'BP-2026-0071': 'match', 'BP-2026-0015': 'match', 'BP-2025-0299': 'indeterminate', 'BP-2025-0240': 'indeterminate' });
    expect(r.body.page.indeterminate).toBe(2);
    expect(numbers((await get(`/permit?${J}&issued[gte]=2026-01-01&filter_indeterminate=exclude`)).body.item)).toEqual(['BP-2026-0071', 'BP-2026-0015']);
    const big = await get(`/permit?${J}&filter[valuation.amount][gte]=50000&filter_indeterminate=only`);
    expect(numbers(big.body.item)).toEqual(await heldNumbers(`kind IN ('permit', 'application') AND body->'valuation' = 'null'::jsonb`));
  });

  test('pages of 2 walk every record once, in the order of one page', async () => {
    const all = numbers((await get(`/permit?${J}&size=200&sort=number`)).body.item);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await get(`/permit?${J}&size=2&sort=number${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      walked.push(...numbers(r.body.item));
      cursor = r.body.page.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all);
    expect(all).toEqual([...all].sort());
  });

  test('known_as_of between the two loads answers what was held then: no BP-2026-0071', async () => {
    const then = numbers((await get(`/permit?${J}&known_as_of=2026-03-20T00:00:00Z&size=200`)).body.item);
    expect(then).not.toContain('BP-2026-0071');
    expect(then).toHaveLength(6);
  });

  test('a scope holding no permit feed: an empty page, and coverage naming why', async () => {
    const r = await get('/permit?jurisdiction=massachusetts');
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual([]);
    expect(r.body.layer).toEqual([expect.objectContaining({ layer: 'permit', held: false, reason: expect.stringMatching(/no public source of the permit layer of Massachusetts is held/) })]);
    const state = await get('/permit?state=MA&size=200');
    expect(state.body.item).toHaveLength(7);
    expect(state.body.coverage).toMatchObject({ in_scope: 3, held: 1 });
    expect(state.body.layer.map((l: { jurisdiction: { slug: string } }) => l.jurisdiction.slug).sort()).toEqual(['massachusetts', 'middlesex-county-ma']);
  });

  test('bad input: two scopes, no scope, an unknown filter field, a malformed parcel', async () => {
    const code = (r: { status: number; body: any }) => [r.status, r.body.detail.error.code, r.body.detail.error.field];
    expect(code(await get(`/permit?${J}&state=MA`))).toEqual([422, 'parameter_invalid', 'state']);
    expect(code(await get('/permit'))).toEqual([422, 'parameter_invalid', 'jurisdiction']);
    expect(code(await get(`/case?${J}&filter[valuation.amount][gte]=1`))[1]).toBe('field_unknown');
    expect(code(await get('/permit?parcel=prc_!'))).toEqual([422, 'id_malformed', 'parcel']);
  });
});

describe('GET /case', () => {
  test('three cases; ZBA-2025-04 granted with its two conditions, PB-2025-11 pending, each with its district', async () => {
    const r = await get(`/case?${J}&sort=number`);
    expect(numbers(r.body.item)).toEqual(['PB-2025-11', 'ZBA-2025-04', 'ZBA-2025-09']);
    const [pb, zba, appeal] = r.body.item;
    expect(pb).toMatchObject({ object: 'case', decision: null, agency: { name: 'Planning Board', type: 'planning_board' }, zoning: [{ code: 'VC', role: 'base', id: expect.stringMatching(/^dst_/) }] });
    expect(zba.decision).toMatchObject({ outcome: { code: 'GRANTED' }, decided_on: '2025-05-20', effective_from: '2025-06-10', effective_to: '2026-05-20' });
    expect(zba.decision.conditions.map((c: { text: string }) => c.text)).toEqual([
      'The addition shall be no taller than one story and 14 feet.',
      'The rights authorized by this variance lapse if not exercised within one year.',
    ]);
    expect(appeal.decision.outcome.code).toBe('DENIED');
    expect(zba.dates).toEqual({ applied: '2025-04-01', decided: '2025-05-20', expires: null, completed: null });
    expect(zba).not.toHaveProperty('valuation');
    const { rows } = await h.pool.query(`SELECT id FROM district WHERE code_normalized = 'R-1' LIMIT 1`);
    expect(zba.zoning[0]).toMatchObject({ code: 'R-1', id: rows[0].id });
    for (const c of r.body.item) expect(JSON.parse(c.citation.quote).case_no).toBe(c.number);
    expect(numbers((await get(`/case?${J}&pending=true`)).body.item)).toEqual(['PB-2025-11']);
    expect(numbers((await get(`/case?${J}&agency_type=zoning_board&filter[decision.outcome.code][eq]=GRANTED`)).body.item)).toEqual(['ZBA-2025-04']);
  });
});

describe('the /v1 forms', () => {
  test('search forms: permits, applications and cases apart, in the list form', async () => {
    const p = await get(`/v1/permit?${J}&size=200`);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(numbers(p.body.data)).toEqual(await heldNumbers(`kind = 'permit'`));
    const a = await get(`/v1/application?fips=25017&size=1&total=true`);
    expect(a.body).toMatchObject({ object: 'list', has_more: true, total: { value: 2, relation: 'eq' } });
    expect(a.body.data[0]).toMatchObject({ object: 'application', kind: 'permit', number: 'BP-2025-0299', addresses: [{ formatted: expect.stringMatching(/12 Orchard Ln/), state: 'MA' }] });
    const next = await get(`/v1/application?fips=25017&size=1&cursor=${encodeURIComponent(a.body.next_cursor)}`);
    expect(numbers(next.body.data)).toEqual(['BP-2025-0240']);
    expect(numbers((await get(`/v1/case?${J}&status=CONTINUED`)).body.data)).toEqual(['PB-2025-11']);
  });

  test('one record by id: the same object as in the search', async () => {
    const known = 'known_as_of=2026-04-22T00:00:00Z';
    const listed = (await get(`/case?${J}&number=ZBA-2025-04&${known}`)).body.item[0];
    const one = await get(`/v1/case/${listed.id}?${known}`);
    expect(one.status).toBe(200);
    const { filter_outcome: _, ...same } = listed;
    expect(one.body).toEqual(same);
    const app = await get(`/v1/application/${stableId('application', listed.jurisdiction.id, 'BP-2025-0240')}`);
    expect(app.body).toMatchObject({ object: 'application', kind: 'permit', number: 'BP-2025-0240', decision: null, zoning: [{ code: 'I-1' }] });
    const permit = await get(`/v1/permit/${stableId('permit', listed.jurisdiction.id, 'BP-2025-0102')}`);
    expect(permit.body).toMatchObject({ object: 'permit', status: { code: 'FINALED' } });
    expect(permit.body).not.toHaveProperty('zoning');
  });

  test('404 for an id no record has, 422 for a malformed one, 501 where the scope holds no feed', async () => {
    const unknown = await get(`/v1/permit/${stableId('permit', 'nowhere', 'X-1')}`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'no_such_resource']);
    const wrong = await get(`/v1/permit/${stableId('case', 'nowhere', 'X-1')}`);
    expect([wrong.status, wrong.body.code]).toEqual([422, 'id_malformed']);
    const none = await get('/v1/permit?jurisdiction=massachusetts');
    expect([none.status, none.body.code]).toEqual([501, 'not_available']);
    expect(none.body.detail).toMatch(/No permit feed is held/);
  });
});
