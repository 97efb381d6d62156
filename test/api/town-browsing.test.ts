// Town-local browsing over the synthetic town (test/fixtures/synthetic-town/EXPECTED.md), ingested
// as v1 (2026-03-05) then v2 (2026-04-21: the zoning map redrawn from 2026-05-15, the R-1 front
// setback 25 → 20 ft from 2026-05-01, section 6.2 repealed from 2026-06-01): the district routes'
// segments, map references, definitions and coverage block, and the code routes over time.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
/** the map versions of the zoning map, v1 and v2 */
const map: Record<'v1' | 'v2', string> = { v1: '', v2: '' };

const get = (path: string) => call(server, 'GET', path, { key });
const interval = (from: string, to: string) => encodeURIComponent(`from:${from} to:${to}`);
type Segment = { from: string; to: string; district: Record<string, any> | null };

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('browse', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: new Date('2026-04-21T12:00:00Z') });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  const { rows } = await h.pool.query(`SELECT id, effective_from::text FROM map_version WHERE layer = 'district' ORDER BY effective_from`);
  expect(rows.map((r) => r.effective_from)).toEqual(['2026-03-05', '2026-05-15']);
  [map.v1, map.v2] = rows.map((r) => r.id);
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

const drawnBy = (d: Record<string, any>) => d.map.drawn_by.map((m: { id: string }) => m.id);

describe('a district: the map versions drawing it, as in force and as known', () => {
  test('R-2 is drawn by the v1 map through 2026-05-14 and by the v2 map from 2026-05-15; each names its layer, dates, document and href', async () => {
    const before = await get('/jurisdiction/millbrook-ma/district/R-2?as_of=2026-05-14');
    const after = await get('/jurisdiction/millbrook-ma/district/R-2?as_of=2026-05-15');
    expect([before.status, after.status]).toEqual([200, 200]);
    expect(before.body.item.map).toMatchObject({ status: 'stated', drawn_by: [{ id: map.v1, layer: 'district', effective_from: '2026-03-05', effective_through: '2026-05-15', href: '/map?jurisdiction=millbrook-ma&layer=district' }] });
    expect(after.body.item.map).toMatchObject({ status: 'stated', drawn_by: [{ id: map.v2, layer: 'district', effective_from: '2026-05-15', effective_through: null, effective_basis: 'stated' }] });
    // the href answers the version it names
    const maps = await get(after.body.item.map.drawn_by[0].href.replace('layer=district', 'layer=district&as_of=2026-05-15'));
    expect(maps.body.item.map((m: { id: string }) => m.id)).toEqual([map.v2]);
    const doc = (await h.pool.query('SELECT document_id, version_id FROM map_version WHERE id = $1', [map.v2])).rows[0];
    expect(after.body.item.map.drawn_by[0]).toMatchObject({ document: doc.document_id, version: doc.version_id });
  });

  test('R-1, whose polygon v2 left unchanged, is drawn by the v2 map once it is in force; as known before v2 was read, by v1', async () => {
    expect(drawnBy((await get('/jurisdiction/millbrook-ma/district/R-1?as_of=2026-06-01')).body.item)).toEqual([map.v2]);
    const then = await get('/jurisdiction/millbrook-ma/district/R-1?as_of=2026-06-01&known_as_of=2026-03-10');
    expect(then.body.item.map).toMatchObject({ status: 'stated', drawn_by: [{ id: map.v1, effective_through: null }] });
  });

  test('a district no map draws says so with the reason read from the maps held', async () => {
    await h.pool.query(`UPDATE district_area SET district_id = 'dst_test_elsewhere' WHERE code_raw = 'I-1'`);
    try {
      const r = await get('/jurisdiction/millbrook-ma/district/I-1?as_of=2026-06-01');
      expect(r.status).toBe(200);
      expect(r.body.item.map).toEqual({ status: 'withheld', drawn_by: [], reason: `None of the zoning maps of Millbrook in force (${map.v2}, district) draws I-1.` });
      // over an interval the reason changes only with the maps in force, so the segments split only there
      const over = await get(`/jurisdiction/millbrook-ma/district/I-1?as_of=${interval('2026-03-05', '2026-12-31')}`);
      expect(over.body.item.segment.map((s: Segment) => [s.from, s.to, s.district!.map.reason])).toEqual([
        ['2026-03-05', '2026-05-14', `None of the zoning maps of Millbrook in force (${map.v1}, district) draws I-1.`],
        ['2026-05-15', '2026-12-31', `None of the zoning maps of Millbrook in force (${map.v2}, district) draws I-1.`],
      ]);
    } finally {
      await h.pool.query(`UPDATE district_area SET district_id = (SELECT id FROM district WHERE code_normalized = 'I-1' LIMIT 1) WHERE code_raw = 'I-1'`);
    }
  });

  test('every district answer carries the coverage block of the layers that answer it', async () => {
    for (const path of ['/jurisdiction/millbrook-ma/district/VC', '/jurisdiction/millbrook-ma/district', `/jurisdiction/millbrook-ma/district?as_of=${interval('2026-01-01', '2026-12-31')}`]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.body.coverage).toMatchObject({
        jurisdiction: r.body.coverage.jurisdiction,
        href: `/coverage?jurisdiction=${r.body.coverage.jurisdiction}`,
        layer: { zoning_text: { held: true, tier: 'full', earliest_retained: '2026-03-05' }, district_map: { held: true }, district_list: { held: false, tier: 'none' }, overlay: { held: false } },
      });
      expect(r.body.as_of.earliest_retained).toEqual({ zoning_text: '2026-03-05', district_map: '2026-03-05' });
    }
  });
});

describe('an interval as_of gives segments', () => {
  test('one district: not in force before it was first read, then one segment per map version, with the notice', async () => {
    const r = await get(`/jurisdiction/millbrook-ma/district/VC?as_of=${interval('2026-01-01', '2026-12-31')}`);
    expect(r.status).toBe(200);
    const seg: Segment[] = r.body.item.segment;
    expect(seg.map((s) => [s.from, s.to, s.district && drawnBy(s.district)])).toEqual([
      ['2026-01-01', '2026-03-04', null],
      ['2026-03-05', '2026-05-14', [map.v1]],
      ['2026-05-15', '2026-12-31', [map.v2]],
    ]);
    expect(seg[1].district).toMatchObject({ code_normalized: 'VC', local_label: 'Village Center District' });
    expect(r.body.as_of).toMatchObject({ constant: false, segment_count: 3, resolved: { from: '2026-01-01', to: '2026-12-31' } });
    expect(r.body.notice).toContainEqual(expect.objectContaining({ code: 'as_of_interval_spans_change', count: 3, subject: ['VC'] }));
    // as known before v2 was read, nothing changed after 2026-03-05
    const then = await get(`/jurisdiction/millbrook-ma/district/VC?as_of=${interval('2026-03-05', '2026-12-31')}&known_as_of=2026-03-10`);
    expect(then.body.item.segment.map((s: Segment) => [s.from, s.to])).toEqual([['2026-03-05', '2026-12-31']]);
    expect(then.body.as_of).toMatchObject({ constant: true, segment_count: 1 });
    expect(then.body.notice ?? []).not.toContainEqual(expect.objectContaining({ code: 'as_of_interval_spans_change' }));
  });

  test('an interval before anything was held is 404 for one district', async () => {
    const r = await get(`/jurisdiction/millbrook-ma/district/VC?as_of=${interval('2025-01-01', '2025-12-31')}`);
    expect(r.status).toBe(404);
  });

  test('the list: each district in force on some day, with its own segments; the R-1 front setback changes on 2026-05-01', async () => {
    const r = await get(`/jurisdiction/millbrook-ma/district?as_of=${interval('2026-04-01', '2026-06-30')}&include=control`);
    expect(r.status).toBe(200);
    expect(r.body.item.map((i: { code_normalized: string }) => i.code_normalized)).toEqual(['I-1', 'R-1', 'R-2', 'VC']);
    const r1 = r.body.item.find((i: { code_normalized: string }) => i.code_normalized === 'R-1');
    const front = (s: Segment) => s.district!.control.find((c: { control_type: string }) => c.control_type === 'dimensional.setback_front').min;
    expect(r1.segment.map((s: Segment) => [s.from, s.to, front(s), drawnBy(s.district!)])).toEqual([
      ['2026-04-01', '2026-04-30', 25, [map.v1]],
      ['2026-05-01', '2026-05-14', 20, [map.v1]],
      ['2026-05-15', '2026-06-30', 20, [map.v2]],
    ]);
    // I-1's controls did not change: its segments split only where its map did
    const i1 = r.body.item.find((i: { code_normalized: string }) => i.code_normalized === 'I-1');
    expect(i1.segment.map((s: Segment) => [s.from, s.to])).toEqual([['2026-04-01', '2026-05-14'], ['2026-05-15', '2026-06-30']]);
    expect(r.body.as_of).toMatchObject({ constant: false, segment_count: 3 });
    expect(r.body.notice).toContainEqual(expect.objectContaining({ code: 'as_of_interval_spans_change', subject: ['I-1', 'R-1', 'R-2', 'VC'] }));
  });

  test('the list over an interval is paged: two by two, every district once, in order', async () => {
    const walked: string[] = [];
    let path = `/jurisdiction/millbrook-ma/district?as_of=${interval('2026-01-01', '2026-12-31')}&size=2`;
    for (let i = 0; i < 5; i++) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect(r.body.item.length).toBeLessThanOrEqual(2);
      walked.push(...r.body.item.map((x: { code_normalized: string }) => x.code_normalized));
      if (!r.body.page.next_cursor) break;
      path = `/jurisdiction/millbrook-ma/district?as_of=${interval('2026-01-01', '2026-12-31')}&size=2&cursor=${encodeURIComponent(r.body.page.next_cursor)}`;
    }
    expect(walked).toEqual(['I-1', 'R-1', 'R-2', 'VC']);
  });
});

describe('include=definition', () => {
  test('a district with a section of its own: the passage of that section, cited', async () => {
    const r = await get('/jurisdiction/millbrook-ma/district/R-1?include=definition');
    expect(r.status).toBe(200);
    expect(r.body.item.definition.status).toBe('stated');
    expect(r.body.item.definition.passage).toEqual([
      expect.objectContaining({
        source: 'district_section',
        section_ref: '3.3.1',
        heading: 'Residence A District (R-1)',
        text: expect.stringMatching(/^The Residence A District is intended to preserve the low-density, rural residential character/),
        citation: expect.objectContaining({ section_ref: '3.3.1', href: expect.stringMatching(/^\/citation\/cit_/) }),
        status: 'stated',
      }),
    ]);
    // the list gives each district its own
    const list = await get('/jurisdiction/millbrook-ma/district?include=definition');
    const byCode = Object.fromEntries(list.body.item.map((i: Record<string, any>) => [i.code_normalized, i.definition.passage.map((p: { section_ref: string }) => p.section_ref)]));
    expect(byCode).toEqual({ 'I-1': ['3.3.4'], 'R-1': ['3.3.1'], 'R-2': ['3.3.2'], VC: ['3.3.3'] });
  });

  test('a definitions section entry whose term is the district is read too; without any passage the definition is withheld with why', async () => {
    const section = (await h.pool.query(`SELECT fact_id, body FROM section WHERE ref = '2' AND upper_inf(known) AND upper_inf(valid)`)).rows[0];
    await h.pool.query('UPDATE section SET body = body || $2 WHERE fact_id = $1', [section.fact_id, '\nVillage Center District: the compact business area along Main Street shown on the Zoning Map.']);
    try {
      const vc = await get('/jurisdiction/millbrook-ma/district/VC?include=definition');
      expect(vc.body.item.definition.passage.map((p: { source: string; section_ref: string; text: string }) => [p.source, p.section_ref, p.text.slice(0, 30)])).toEqual([
        ['district_section', '3.3.3', 'The Village Center District is'],
        ['definitions_section', '2', 'Village Center District: the c'],
      ]);
    } finally {
      await h.pool.query('UPDATE section SET body = $2 WHERE fact_id = $1', [section.fact_id, section.body]);
    }
    const text = `code_normalized = 'R-2' AND source_id IN (SELECT id FROM source WHERE kind = 'code_text')`;
    await h.pool.query(`UPDATE district SET section_ref = '3.1' WHERE ${text}`);
    try {
      const r2 = await get('/jurisdiction/millbrook-ma/district/R-2?include=definition&as_of=2026-06-01');
      expect(r2.body.item.definition).toEqual({
        status: 'withheld',
        passage: [],
        reason: 'Section 3.1 (Districts), given for R-2 in the zoning text held for Millbrook, is headed neither for R-2 nor for a purpose, and its definitions section in force does not define R-2.',
      });
    } finally {
      await h.pool.query(`UPDATE district SET section_ref = '3.3.2' WHERE ${text}`);
    }
  });
});

describe('the codes of the town', () => {
  const kinds = (item: Array<{ kind: string }>) => item.map((i) => i.kind);

  test('GET /jurisdiction/{id}/code: the zoning text held, and every other kind named as not held with why', async () => {
    const r = await get('/jurisdiction/millbrook-ma/code?as_of=2026-06-01');
    expect(r.status).toBe(200);
    expect(kinds(r.body.item)).toEqual(['zoning']);
    const doc = (await h.pool.query(`SELECT d.id, d.title FROM document d JOIN source s ON s.id = d.source_id WHERE s.kind = 'code_text'`)).rows[0];
    expect(r.body.item[0]).toMatchObject({ kind: 'zoning', document: doc.id, title: doc.title, source: 'zoning-code', adoption: { level: 'local', name: 'Millbrook' }, href: '/code/zoning?jurisdiction=millbrook-ma', effective_from: '2026-03-05' });
    expect(r.body.layer.map((l: { layer: string }) => l.layer)).toEqual(['subdivision', 'stormwater', 'floodplain', 'building', 'fire']);
    expect(r.body.layer[0].reason).toBe(`No subdivision code of Millbrook is held: the code texts held (${doc.title}) are read as its zoning code.`);
    expect(r.body.layer[3].reason).toMatch(/^No source held for Millbrook, its manifest included, names who governs its building code/);
    expect(r.body.coverage.layer).toMatchObject({ zoning_text: { held: true }, authority: { held: true, subjects: ['zoning'], subjects_not_held: ['subdivision', 'building_code', 'fire_code'] } });
  });

  test('time: the section count follows the repeal of 6.2 on 2026-06-01; before the text was held, or as known before it was read, zoning is not held', async () => {
    const may = await get('/jurisdiction/millbrook-ma/code?as_of=2026-05-31&kind=zoning');
    const june = await get('/jurisdiction/millbrook-ma/code?as_of=2026-06-01&kind=zoning');
    expect(june.body.item[0].section_count).toBe(may.body.item[0].section_count - 1);
    const early = await get('/jurisdiction/millbrook-ma/code?as_of=2026-03-01&kind=zoning');
    expect(early.body.item).toEqual([]);
    expect(early.body.layer).toEqual([{ layer: 'zoning', held: false, reason: expect.stringMatching(/is in force from 2026-03-05; not on 2026-03-01\.$/) }]);
    const unknown = await get('/jurisdiction/millbrook-ma/code?as_of=2026-06-01&known_as_of=2026-03-01&kind=zoning');
    expect(unknown.body.item).toEqual([]);
    expect(unknown.body.layer[0].reason).toMatch(/^No text of the code text sources of Millbrook \(zoning-code\) was loaded as known at 2026-03-01/);
    const over = await get(`/jurisdiction/millbrook-ma/code?as_of=${interval('2026-05-01', '2026-06-30')}&kind=zoning`);
    expect(over.body.item).toHaveLength(1);
    expect(over.body.item[0].segment.map((s: { from: string; to: string; code: { section_count: number } }) => [s.from, s.to, s.code.section_count])).toEqual([
      ['2026-05-01', '2026-05-31', may.body.item[0].section_count],
      ['2026-06-01', '2026-06-30', june.body.item[0].section_count],
    ]);
  });

  test('a kind filter answers only those kinds; an unknown kind is 422 naming it', async () => {
    const r = await get('/jurisdiction/millbrook-ma/code?kind=fire');
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual([]);
    expect(r.body.layer.map((l: { layer: string }) => l.layer)).toEqual(['fire']);
    const bad = await get('/jurisdiction/millbrook-ma/code?kind=plumbing');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'kind' });
  });

  test('GET /code/zoning: the outline of the sections in force, each cited; 6.2 is gone from 2026-06-01', async () => {
    const may = await get('/code/zoning?jurisdiction=millbrook-ma&as_of=2026-05-31');
    expect(may.status).toBe(200);
    const code = may.body.item.code[0];
    expect(may.body.item).toMatchObject({ kind: 'zoning', jurisdiction: { slug: 'millbrook-ma', name: 'Millbrook' } });
    expect(code.outline.status).toBe('stated');
    expect(code.outline.section).toHaveLength(code.section_count);
    expect(code.outline.section.slice(0, 3).map((s: { ref: string; heading: string }) => [s.ref, s.heading])).toEqual([
      ['1', 'Title, Authority and Purpose'],
      ['1.1', 'Title'],
      ['1.2', 'Authority'],
    ]);
    const s62 = code.outline.section.find((s: { ref: string }) => s.ref === '6.2');
    expect(s62).toMatchObject({ heading: 'Outdoor Wood-Fired Hydronic Heaters', parent_ref: '6', effective_through: '2026-06-01' });
    const cite = await get(s62.citation.href);
    expect(cite.status).toBe(200);
    expect(cite.body.item.quote).toMatch(/6\.2 Outdoor Wood-Fired Hydronic Heaters/);
    const june = await get('/code/zoning?jurisdiction=millbrook-ma&as_of=2026-06-01');
    expect(june.body.item.code[0].outline.section.map((s: { ref: string }) => s.ref)).not.toContain('6.2');
    expect(may.body.coverage.layer.zoning_text).toMatchObject({ held: true });
  });

  test('GET /code/zoning over an interval: a segment per outline; GET /code/{kind} not held is 501 with the reason', async () => {
    const r = await get(`/code/zoning?jurisdiction=millbrook-ma&as_of=${interval('2026-05-01', '2026-06-30')}`);
    expect(r.status).toBe(200);
    expect(r.body.item.segment.map((s: { from: string; to: string }) => [s.from, s.to])).toEqual([
      ['2026-05-01', '2026-05-31'],
      ['2026-06-01', '2026-06-30'],
    ]);
    expect(r.body.notice).toContainEqual(expect.objectContaining({ code: 'as_of_interval_spans_change', subject: ['zoning'] }));
    const sub = await get('/code/subdivision?jurisdiction=millbrook-ma');
    expect(sub.status).toBe(501);
    expect(sub.body.detail.error).toMatchObject({ code: 'not_available', field: 'kind', detail: expect.stringMatching(/^No subdivision code of Millbrook is held/) });
    const early = await get('/code/zoning?jurisdiction=millbrook-ma&as_of=2026-03-01');
    expect(early.status).toBe(501);
  });

  test('GET /code/{kind}: jurisdiction is required, one naming nothing is 422, an unknown kind 422', async () => {
    const none = await get('/code/zoning');
    expect([none.status, none.body.detail.error.field]).toEqual([422, 'jurisdiction']);
    const nowhere = await get('/code/zoning?jurisdiction=atlantis-ma');
    expect(nowhere.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'jurisdiction' });
    const kind = await get('/code/plumbing?jurisdiction=millbrook-ma');
    expect(kind.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'kind' });
  });
});

describe('a permit process as the code states it', () => {
  test('special permit: the section headed for it names the Planning Board; no hearing, notice or appeal is stated there, and that is said', async () => {
    const r = await get('/process/special_permit?jurisdiction=millbrook-ma&as_of=2026-06-01');
    expect(r.status).toBe(200);
    const p = r.body.item;
    expect(p).toMatchObject({ type: 'special_permit', name: 'Special Permit Granting Authority', basis: 'heading', section: [{ ref: '7.1', citation: { section_ref: '7.1' } }] });
    expect(p.decides).toMatchObject({ status: 'stated', body: ['Planning Board'], passage: [{ text: 'The Planning Board is the special permit granting authority for uses marked SP in Table 4.1.', section_ref: '7.1' }] });
    for (const f of ['hearing', 'notice', 'appeal']) {
      expect(p[f]).toEqual({ status: 'withheld', passage: [], reason: `Section 7.1 (Special Permit Granting Authority) and the sections under it, in the code text held for Millbrook, state no ${f}.` });
    }
    expect(r.body.coverage.layer.zoning_text).toMatchObject({ held: true });
  });

  test('variance: no heading names it, so the sentences naming it are read: the Zoning Board of Appeals hears them', async () => {
    const r = await get('/process/Variance?jurisdiction=millbrook-ma');
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject({ name: 'variance', basis: 'mention', section: [{ ref: '7.2' }], decides: { status: 'stated', body: ['Zoning Board of Appeals'] }, appeal: { status: 'stated' } });
    expect(r.body.item.hearing.reason).toMatch(/^The sentences naming variance \(sections 7\.2\)/);
  });

  test('time: before the code text was in force it is 501 with why; over an interval, a segment before and one after', async () => {
    const early = await get('/process/special_permit?jurisdiction=millbrook-ma&as_of=2026-01-01');
    expect(early.status).toBe(501);
    expect(early.body.detail.error.detail).toMatch(/is in force from 2026-03-05; not on 2026-01-01\.$/);
    const over = await get(`/process/special_permit?jurisdiction=millbrook-ma&as_of=${interval('2026-01-01', '2026-12-31')}`);
    expect(over.status).toBe(200);
    expect(over.body.item.segment.map((s: { from: string; to: string; process: { name: string } | null }) => [s.from, s.to, s.process?.name ?? null])).toEqual([
      ['2026-01-01', '2026-03-04', null],
      ['2026-03-05', '2026-12-31', 'Special Permit Granting Authority'],
    ]);
  });

  test('a name that is not one is 422; jurisdiction is required', async () => {
    const bad = await get('/process/%3F%3F?jurisdiction=millbrook-ma');
    expect(bad.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'type' });
    const none = await get('/process/special_permit');
    expect(none.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'jurisdiction' });
  });
});
