// The API over the synthetic town (test/fixtures/synthetic-town/EXPECTED.md), ingested as v1 then
// v2: replayed answers, both time axes on /rule, citations found verbatim in their retained text,
// vocabulary refusals, coarse locations, includes not consulted, pending amendments, and the
// change feed and /rule replaying identically while a load is in flight.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { settledKnowledge, withKnowledgeLoad } from '../../store/changes.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
const parcel: Record<string, string> = {};
/** an answer given between the two ingests: its id, the bytes served, and the same question's item */
let before: { id: string; text: string; known: string };

const get = (path: string) => call(server, 'GET', path, { key });
async function raw(path: string) {
  const res = await fetch(server.url + path, { headers: { 'X-API-Key': key } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('town', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  for (const r of (await h.pool.query(`SELECT id, parcel_key FROM parcel WHERE parcel_key IN ('4-15', '2-2', '4-22')`)).rows) parcel[r.parcel_key] = r.id;
  const r = await raw(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01&include=moratorium`);
  expect(r.status).toBe(200);
  const body = JSON.parse(r.text);
  before = { id: body.meta.answer_id, text: r.text, known: body.as_of.known_as_of };
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

const codes = (item: { share: Array<{ district: { code: string } }> }) => item.share.map((s) => s.district.code);

describe('replay and both time axes', () => {
  test('an answer given before v2 was ingested replays byte for byte after it', async () => {
    const replay = await raw(`/answer/${before.id}`);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(before.text);
    expect(JSON.parse(replay.text)).toEqual(JSON.parse(before.text));
    // what it said then: 4-15 in R-2 (v1 knew no rezoning)
    expect(codes(JSON.parse(replay.text).item)).toEqual(['R-2']);
  });

  test('what an answer says around its facts is read again once v2 is known (no process keeps it past a load)', async () => {
    const after = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01&include=moratorium`);
    const latest = (await h.pool.query('SELECT max(seq)::int AS seq FROM change_event')).rows[0].seq;
    expect(JSON.parse(before.text).meta.answer_through).toBeLessThan(latest);
    expect(after.body.meta.answer_through).toBe(latest);
    expect(codes(after.body.item)).toEqual(['VC']);
  });

  test('the same question as known between the ingests gives the same item after v2', async () => {
    const then = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01&include=moratorium&known_as_of=2026-03-20`);
    expect(then.status).toBe(200);
    expect(then.body.item).toEqual(JSON.parse(before.text).item);
    const now = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01`);
    expect(codes(now.body.item)).toEqual(['VC']);
  });

  test('parcel 4-15 is R-2 as of 2026-05-14 and VC as of 2026-05-15', async () => {
    const a = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-05-14`);
    const b = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-05-15`);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(codes(a.body.item)).toEqual(['R-2']);
    expect(codes(b.body.item)).toEqual(['VC']);
    expect(a.body.item.share[0].share).toBe(1);
    expect(b.body.item.share[0].district.citation.quote).toMatch(/Village Center/);
  });

  test('an interval as_of answers segments, never a single winner', async () => {
    const r = await get(`/rule?parcel=${parcel['4-15']}&as_of=${encodeURIComponent('from:2026-04-01 to:2026-06-30')}`);
    expect(r.status).toBe(200);
    expect(r.body.item.share).toBeUndefined();
    const seg: Array<{ from: string; to: string; share: Array<{ district: { code: string } }> }> = r.body.item.segment;
    expect(seg.length).toBeGreaterThan(1);
    expect(seg[0].from).toBe('2026-04-01');
    expect(seg[seg.length - 1].to).toBe('2026-06-30');
    for (let i = 1; i < seg.length; i++) expect(new Date(`${seg[i].from}T00:00:00Z`).getTime() - new Date(`${seg[i - 1].to}T00:00:00Z`).getTime()).toBe(86_400_000);
    const at = (d: string) => seg.find((s) => s.from <= d && d <= s.to)!;
    expect(codes(at('2026-05-14'))).toEqual(['R-2']);
    expect(codes(at('2026-05-15'))).toEqual(['VC']);
    expect(at('2026-05-15').from).toBe('2026-05-15');
    expect(r.body.as_of).toMatchObject({ constant: false, segment_count: seg.length });
    expect(r.body.notice.map((n: { code: string }) => n.code)).toContain('as_of_interval_spans_change');
  });

  test('the R-1 front setback is 25 ft through 2026-04-30 and 20 ft from 2026-05-01, each cited', async () => {
    const setback = async (asOf: string) => {
      const r = await get(`/rule?parcel=${parcel['2-2']}&as_of=${asOf}&control_type=dimensional.setback_front`);
      expect(r.status).toBe(200);
      expect(codes(r.body.item)).toEqual(['R-1']);
      expect(r.body.item.share[0].control).toHaveLength(1);
      return r.body.item.share[0].control[0];
    };
    const old = await setback('2026-04-30');
    const amended = await setback('2026-05-01');
    expect(old).toMatchObject({ control_type: 'dimensional.setback_front', value: { min: 25, unit: 'ft' }, status: 'stated' });
    expect(amended).toMatchObject({ control_type: 'dimensional.setback_front', value: { min: 20, unit: 'ft' }, status: 'stated', effective_from: '2026-05-01' });
    expect(old.citation.quote).toMatch(/25/);
    expect(amended.citation.quote).toMatch(/20/);
    expect(amended.citation.version).not.toBe(old.citation.version);
    const over = await get(`/rule?parcel=${parcel['2-2']}&as_of=${encodeURIComponent('from:2026-04-25 to:2026-05-05')}&control_type=dimensional.setback_front`);
    expect(over.body.item.segment.map((s: { from: string; to: string; share: Array<{ control: Array<{ value: { min: number } }> }> }) => [s.from, s.to, s.share[0].control[0].value.min])).toEqual([
      ['2026-04-25', '2026-04-30', 25],
      ['2026-05-01', '2026-05-05', 20],
    ]);
  });
});

describe('citations', () => {
  /** Every object in an answer that is a citation (an id cit_… with a quote), and bare citation ids. */
  function citations(node: unknown, out: { views: Array<Record<string, any>>; ids: Set<string> }, key = '') {
    if (Array.isArray(node)) for (const x of node) citations(x, out, key);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o.id === 'string' && o.id.startsWith('cit_') && 'quote' in o) out.views.push(o);
      for (const [k, v] of Object.entries(o)) citations(v, out, k);
    } else if (key === 'citation' && typeof node === 'string') out.ids.add(node);
    return out;
  }

  test('every fact in a /rule answer carries a citation found verbatim in its retained version', async () => {
    for (const [p, asOf] of [
      ['4-15', '2026-06-01'],
      ['2-2', '2026-04-30'],
      ['2-2', '2026-05-01'],
    ]) {
      const r = await get(`/rule?parcel=${parcel[p]}&as_of=${asOf}&include=moratorium`);
      expect(r.status).toBe(200);
      const share = r.body.item.share[0];
      // the facts: the district, each control and permission (and what they superseded), the unlisted-use rule, moratoriums
      const facts = [share.district, ...share.control, ...share.permission, ...share.control.flatMap((c: { losing: unknown[] }) => c.losing), r.body.item.unlisted_uses, ...r.body.item.moratorium];
      expect(share.control.length).toBeGreaterThan(5);
      expect(share.permission.length).toBeGreaterThan(5);
      for (const f of facts) expect(f.citation?.quote, JSON.stringify(f)).toEqual(expect.any(String));
      if (asOf === '2026-06-01') expect(r.body.item.moratorium).toHaveLength(1);
      const found = citations(r.body, { views: [], ids: new Set() });
      for (const a of r.body.authority) expect(a.citation).toMatch(/^cit_/);
      const all = new Map(found.views.map((v) => [v.id as string, v]));
      for (const id of found.ids) if (!all.has(id)) all.set(id, (await get(`/citation/${id}`)).body.item);
      expect(all.size).toBeGreaterThan(10);
      for (const c of all.values()) {
        const src = await raw(`/citation/${c.id}/source?format=text`);
        expect(src.status).toBe(200);
        const start = Number(src.headers.get('x-passage-start'));
        const end = Number(src.headers.get('x-passage-end'));
        expect(src.text.slice(start, end), c.id).toBe(c.quote);
        expect(src.headers.get('x-version')).toBe(c.version);
        const { rows } = await h.pool.query('SELECT position($2 IN text) > 0 AS found FROM version_text WHERE version_id = $1', [c.version, c.quote]);
        expect(rows[0].found).toBe(true);
      }
    }
  });
});

describe('vocabulary', () => {
  test('an unknown use slug is 422 vocabulary_value_unknown wherever use is taken, never the unlisted-use rule', async () => {
    const moat = 'residential.castle.moat';
    const conf = await get(`/conformance?parcel=${parcel['4-15']}&use=${moat}`);
    expect(conf.status).toBe(422);
    expect(conf.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
    const proposal = await call(server, 'POST', '/place/proposal', { key, body: { location: { parcel: [parcel['4-15']] }, use: ['energy.battery_storage', moat] } });
    expect(proposal.status).toBe(422);
    expect(proposal.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use[1]' });
    const zoning = await get(`/v1/zoning?jurisdiction=millbrook-ma&use=${moat}`);
    expect(zoning.status).toBe(422);
    expect(zoning.body).toMatchObject({ code: 'vocabulary_value_unknown', errors: [{ field: 'use', code: 'vocabulary_value_unknown' }] });
    const district = await get(`/jurisdiction/millbrook-ma/district/R-1?use=${moat}`);
    expect(district.status).toBe(422);
    expect(district.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
    const rule = await get(`/rule?parcel=${parcel['4-15']}&use=${moat}`);
    expect(rule.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
  });

  test('a known use is still answered: by the use table, by its use_ id, and unlisted in a table by the code’s rule', async () => {
    const conf = await get(`/conformance?parcel=${parcel['2-2']}&use=energy.battery_storage&as_of=2026-03-10`);
    expect(conf.status).toBe(200);
    expect(conf.body.item.check[0]).toMatchObject({ kind: 'use', use: 'energy.battery_storage', outcome: 'not_allowed', level: 'prohibited' });
    const id = (await h.pool.query(`SELECT id FROM use_term WHERE slug = 'energy.battery_storage'`)).rows[0].id;
    const byId = await call(server, 'POST', '/place/proposal', { key, body: { location: { parcel: [parcel['2-2']] }, as_of: '2026-03-10', use: [id] } });
    expect(byId.status).toBe(200);
    expect(byId.body.item.check[0]).toMatchObject({ use: 'energy.battery_storage', outcome: 'not_allowed' });
    const zoning = await get('/v1/zoning?jurisdiction=millbrook-ma&use=energy.battery_storage&result=conditional');
    expect(zoning.status).toBe(200);
    expect(zoning.body.data.map((z: { code: string }) => z.code)).toEqual(['I-1']);
    const district = await get('/jurisdiction/millbrook-ma/district/I-1?use=energy.battery_storage');
    expect(district.status).toBe(200);
    expect(district.body.item.permission.map((p: { level: string }) => p.level)).toEqual(['conditional_use']);
    // a vocabulary use the use tables never name: the code's own rule for unlisted uses answers it
    const held = new Set((await h.pool.query('SELECT DISTINCT use_slug FROM permission WHERE use_slug IS NOT NULL')).rows.map((r) => r.use_slug));
    const unlisted = (await h.pool.query('SELECT slug FROM use_term ORDER BY slug')).rows.map((r) => r.slug as string).find((s) => ![...held].some((x) => x === s || x.startsWith(`${s}.`) || s.startsWith(`${x}.`)));
    const u = await get(`/conformance?parcel=${parcel['2-2']}&use=${unlisted}`);
    expect(u.status).toBe(200);
    expect(u.body.item.check[0]).toMatchObject({ outcome: 'not_allowed', citation: { quote: 'A use not listed in Table 4.1 is not permitted in any district.' } });
  });

  test('an unknown control_type is refused naming the parameter; the contract’s names are accepted', async () => {
    const r = await get(`/rule?parcel=${parcel['2-2']}&control_type=dimensional.moat_width`);
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'control_type' });
    expect(r.body.detail.error.detail).toMatch(/dimensional\.moat_width/);
    const malformed = await get(`/rule?parcel=${parcel['2-2']}&control_type=setback`);
    expect(malformed.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'control_type' });
    const side = await get(`/rule?parcel=${parcel['2-2']}&control_type=dimensional.setback_side_interior&control_type=dimensional.setback_rear`);
    expect(side.status).toBe(200);
    expect(side.body.item.share[0].control.map((c: { control_type: string }) => c.control_type).sort()).toEqual(['dimensional.setback_rear', 'dimensional.setback_side']);
    const held = await get(`/rule?parcel=${parcel['2-2']}&control_type=dimensional.far`);
    expect(held.body.item.share[0].control.map((c: { control_type: string }) => c.control_type)).toEqual(['dimensional.far']);
  });
});

describe('locations too coarse for a parcel', () => {
  test('a street answers at the jurisdiction: authorities, coverage, the town-wide rules, no district', async () => {
    const r = await get(`/rule?address=${encodeURIComponent('Main St')}&as_of=2026-06-01&include=moratorium`);
    expect(r.status).toBe(200);
    expect(r.body.resolution).toMatchObject({ state: 'insufficient_precision', grain: 'street', parcel: null });
    expect(r.body.jurisdiction.slug).toBe('millbrook-ma');
    expect(r.body.authority[0]).toMatchObject({ subject: 'zoning', citation: expect.stringMatching(/^cit_/) });
    expect(r.body.coverage).toMatchObject({ jurisdiction: r.body.jurisdiction.id, layer: { zoning_text: { held: true }, district_map: { held: true } } });
    expect(r.body.item.share).toBeNull();
    expect(r.body.item.overlay).toBeNull();
    expect(r.body.item.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { quote: 'A use not listed in Table 4.1 is not permitted in any district.' } });
    // the town-wide moratorium reaches every location in the town
    expect(r.body.item.moratorium.map((m: { jurisdiction_wide: boolean }) => m.jurisdiction_wide)).toEqual([true]);
    const skipped = r.body.item.not_consulted.filter((n: { reason: string }) => /placed in no district/.test(n.reason)).map((n: { layer: string }) => n.layer);
    expect(skipped.sort()).toEqual(['district_map', 'zoning_text']);
    expect(r.body.meta.answer_id).toMatch(/^ans_/);
  });

  test('an ambiguous address answers at the jurisdiction too, with its candidates', async () => {
    const r = await get(`/rule?address=${encodeURIComponent('999 Main St')}`);
    expect(r.status).toBe(200);
    expect(r.body.resolution.state).toBe('ambiguous');
    expect(r.body.resolution.candidates.length).toBeGreaterThan(0);
    expect(r.body.item.share).toBeNull();
    expect(r.body.coverage.jurisdiction).toBe(r.body.jurisdiction.id);
  });

  test('strict=true refuses both with 422', async () => {
    const coarse = await get(`/rule?address=${encodeURIComponent('Main St')}&strict=true`);
    expect(coarse.status).toBe(422);
    expect(coarse.body.detail.error).toMatchObject({ code: 'location_insufficient_precision', field: 'address' });
    const ambiguous = await get(`/rule?address=${encodeURIComponent('999 Main St')}&strict=true`);
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body.detail.error).toMatchObject({ code: 'location_ambiguous', field: 'address' });
  });
});

describe('includes', () => {
  test('an include the store holds is answered; only what it does not hold is named in not_consulted, with why', async () => {
    const r = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01&include=standalone_ordinance,aggregate,provenance,moratorium,definition,special_district`);
    expect(r.status).toBe(200);
    const named = r.body.item.not_consulted.filter((n: { via?: string }) => n.via === 'include');
    expect(named).toEqual([
      { layer: 'aggregate', via: 'include', reason: 'aggregates are not computed' },
      { layer: 'special_district', via: 'include', reason: 'no source of the special_district layer is held for Millbrook' },
    ]);
    expect(r.body.item.moratorium).toHaveLength(1);
    for (const k of ['definition', 'standalone_ordinance', 'provenance']) expect(r.body.item[k].length, k).toBeGreaterThan(0);
    const plain = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01`);
    expect(plain.body.item.not_consulted.filter((n: { via?: string }) => n.via === 'include')).toEqual([]);
    expect(plain.body.item.definition).toBeUndefined();
  });

  test('definition: the terms of the code’s Definitions section that name a use or control of the answer, cited', async () => {
    const r = await get(`/rule?parcel=${parcel['2-2']}&as_of=2026-06-01&include=definition`);
    expect(r.status).toBe(200);
    const defs = r.body.item.definition as Array<{ term: string; text: string; section_ref: string; for: unknown[]; citation: { quote: string; version: string } }>;
    const adu = defs.find((d) => d.term === 'Accessory dwelling unit')!;
    expect(adu).toMatchObject({ section_ref: '2.1', text: expect.stringMatching(/^A self-contained dwelling unit/) });
    expect(adu.for).toContainEqual(expect.objectContaining({ label: 'Accessory dwelling unit' }));
    const front = defs.find((d) => d.term === 'Setback, front')!;
    expect(front).toMatchObject({ section_ref: '2.5', for: [{ control_type: 'dimensional.setback_front' }] });
    // each definition's citation is found verbatim in its retained version
    for (const d of defs) {
      const text = (await h.pool.query('SELECT text FROM version_text WHERE version_id = $1', [d.citation.version])).rows[0].text as string;
      expect(text.includes(d.citation.quote)).toBe(true);
    }
    // a term that names nothing the answer states is left out (the wood-fired heater is no use of Table 4.1)
    expect(defs.map((d) => d.term)).not.toContain('Outdoor wood-fired hydronic heater');
    // only what the answer states is defined: narrowed to one use and another control, the front setback's term goes
    const one = await get(`/rule?parcel=${parcel['2-2']}&as_of=2026-06-01&include=definition&use=residential.dwelling.accessory_unit&control_type=dimensional.setback_rear`);
    expect(one.status).toBe(200);
    expect(one.body.item.definition.map((d: { term: string }) => d.term)).toEqual(['Accessory dwelling unit']);
  });

  test('definition: a code text without a section headed Definitions says so, naming its source and dates', async () => {
    const saved = (await h.pool.query(`SELECT fact_id, heading FROM section WHERE heading ~* 'definitions'`)).rows;
    expect(saved.length).toBeGreaterThan(0);
    await h.pool.query(`UPDATE section SET heading = 'Glossary' WHERE fact_id = ANY($1)`, [saved.map((x) => x.fact_id)]);
    try {
      const r = await get(`/rule?parcel=${parcel['2-2']}&as_of=2026-06-01&include=definition`);
      expect(r.body.item.definition).toBeUndefined();
      const n = r.body.item.not_consulted.find((x: { layer: string }) => x.layer === 'definition');
      expect(n.reason).toBe(`the zoning_text sources held for Millbrook (zoning-code) hold no section headed Definitions in force on 2026-06-01 as known at ${r.body.as_of.known_as_of}`);
    } finally {
      for (const x of saved) await h.pool.query('UPDATE section SET heading = $2 WHERE fact_id = $1', [x.fact_id, x.heading]);
    }
  });

  test('standalone_ordinance: adopted general ordinances the code does not codify, in force at as_of', async () => {
    const r = await get(`/rule?parcel=${parcel['4-15']}&as_of=2026-06-01&include=standalone_ordinance`);
    // 2019-01 is a general ordinance too, but the code text names it as its own adoption
    expect(r.body.item.standalone_ordinance).toEqual([
      expect.objectContaining({ number: '2024-06', title: 'Noise Control', kind: 'standalone', status: 'adopted', adopted_on: '2024-06-11', effective_from: '2024-07-01', citation: expect.objectContaining({ quote: expect.stringContaining('2024-06') }) }),
    ]);
    // an interval wholly before retained history, clamped: answered on the earliest retained date alone
    const over = await get(`/rule?parcel=${parcel['4-15']}&as_of=${encodeURIComponent('from:2024-06-01 to:2024-07-31')}&as_of_clamp=true&include=standalone_ordinance`);
    expect(over.status).toBe(200);
    const seg = over.body.item.segment as Array<{ from: string; to: string; standalone_ordinance: Array<{ number: string }> }>;
    expect(seg).toHaveLength(1);
    expect(seg[0].from).toBe(seg[0].to);
    expect(seg[0].standalone_ordinance.map((o) => o.number)).toEqual(['2024-06']);
  });

  test('provenance: each fact of the answer with the source, version and retrieval it came from', async () => {
    const at = async (asOf: string) => {
      const r = await get(`/rule?parcel=${parcel['2-2']}&as_of=${asOf}&control_type=dimensional.setback_front&include=provenance`);
      expect(r.status).toBe(200);
      return r.body;
    };
    const body = await at('2026-05-01');
    const prov = body.item.provenance as Array<{ version: string; sha256: string; retrieved_at: string; doc_type: string; source: { kind: string } | null; fact: Array<{ table: string; id: string | null; citation: string | null }> }>;
    const control = body.item.share[0].control[0];
    const from = prov.find((p) => p.fact.some((f) => f.table === 'control' && f.id === control.id))!;
    expect(from).toMatchObject({ version: control.citation.version, doc_type: 'code', source: { kind: 'code_text' } });
    const v = (await h.pool.query('SELECT sha256, retrieved_at FROM document_version WHERE id = $1', [from.version])).rows[0];
    expect(from.sha256).toBe(v.sha256);
    expect(new Date(from.retrieved_at).getTime()).toBe(new Date(v.retrieved_at).getTime());
    // the district's share comes from the map: its areas at the parcel, under the map's version
    const areas = (
      await h.pool.query(
        `SELECT a.id, m.version_id FROM district_area a JOIN map_version m ON m.id = a.map_version_id JOIN parcel p ON p.id = $1 AND upper_inf(p.known)
          WHERE a.kind = 'base' AND a.valid @> '2026-05-01'::date AND upper_inf(a.known) AND ST_Intersects(a.geom, p.geom) AND a.district_id = $2`,
        [parcel['2-2'], body.item.share[0].district.id],
      )
    ).rows;
    expect(areas.length).toBeGreaterThan(0);
    for (const a of areas) expect(prov.find((p) => p.version === a.version_id)!.fact).toContainEqual({ table: 'district_area', id: a.id, citation: null });
    // authorities are facts of the answer too
    expect(prov.flatMap((p) => p.fact).some((f) => f.table === 'authority')).toBe(true);
    // the amended setback came from the second version of the code; the one before it from the first
    const before = await at('2026-04-30');
    const oldControl = before.item.share[0].control[0];
    const oldFrom = (before.item.provenance as typeof prov).find((p) => p.fact.some((f) => f.table === 'control' && f.id === oldControl.id))!;
    expect(oldFrom.version).toBe(oldControl.citation.version);
    expect(oldFrom.version).not.toBe(from.version);
  });
});

describe('/place over an interval', () => {
  test('an interval as_of answers segment[]: 4-15 in R-2, then in VC from 2026-05-15', async () => {
    const r = await get(`/place?parcel=${parcel['4-15']}&as_of=${encodeURIComponent('from:2026-04-01 to:2026-06-30')}&include=assignment,parcel,property`);
    expect(r.status).toBe(200);
    expect(r.body.item.assignment).toBeUndefined();
    expect(r.body.item.parcel.map((p: { id: string }) => p.id)).toEqual([parcel['4-15']]);
    const seg = r.body.item.segment as Array<{ from: string; to: string; assignment: Array<{ district: { code: string } }>; property: Array<{ parcel: string[] }> }>;
    expect(seg.map((s) => [s.from, s.to, s.assignment.map((a) => a.district.code)])).toEqual([
      ['2026-04-01', '2026-05-14', ['R-2']],
      ['2026-05-15', '2026-06-30', ['VC']],
    ]);
    for (const s of seg) for (const p of s.property) expect(p.parcel).toContain(parcel['4-15']);
    expect(r.body.as_of).toMatchObject({ constant: false, segment_count: 2 });
    expect(r.body.notice.map((n: { code: string }) => n.code)).toContain('as_of_interval_spans_change');
    const one = await get(`/place?parcel=${parcel['4-15']}&as_of=${encodeURIComponent('from:2026-06-01 to:2026-06-30')}&include=assignment`);
    expect(one.body.item.segment).toHaveLength(1);
    expect(one.body.as_of).toMatchObject({ constant: true, segment_count: 1 });
  });
});

describe('legal_status=proposed', () => {
  const numbers = (r: { body: { pending_ordinance: Array<{ number: string }> } }) => r.body.pending_ordinance.map((o) => o.number);

  test("2026-03's own text is read: its instruction is checked against Section 6.1 and changes no classification", async () => {
    const r = await get('/v1/zoning?jurisdiction=millbrook-ma&legal_status=proposed');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', data: [], has_more: false });
    expect(r.body.pending_ordinance).toEqual([
      expect.objectContaining({ number: '2026-03', title: 'Accessory Dwelling Units: Floor Area', kind: 'text_amendment', status: 'introduced', introduced_on: '2026-02-10', adopted_on: null, text_read: true, citation: expect.objectContaining({ passage: expect.stringContaining('2026-03') }) }),
    ]);
    const [instruction] = r.body.pending_ordinance[0].instruction;
    expect(instruction).toMatchObject({ action: 'replace', target: 'section', ref: '6.1', state: 'text_only' });
    expect(instruction.detail).toMatch(/"900 square feet" becomes "1,000 square feet"/);
    expect(instruction.citation.passage).toMatch(/^Section 1\. Section 6\.1 of the Zoning Ordinance is proposed to be amended by striking "900 square feet"/);
    const [notice] = r.body.notice;
    expect(notice).toMatchObject({ code: 'proposed_classifications', count: 1, subject: [r.body.pending_ordinance[0].id] });
    const adopted = await get('/v1/zoning?jurisdiction=millbrook-ma');
    expect(adopted.body.data.length).toBe(4);
    expect(adopted.body.notice).toBeUndefined();
  });

  test('as of a date the v2 amendments were pending: R-1 with its front setback 20 ft, VC gaining and R-2 losing 221 Main St', async () => {
    const r = await get('/v1/zoning?jurisdiction=millbrook-ma&legal_status=proposed&as_of=2026-04-01&include=standard');
    expect(r.body.pending_ordinance.map((o: { number: string; status: string }) => [o.number, o.status])).toEqual([
      ['2026-03', 'introduced'],
      ['2026-07', 'introduced'],
      ['2026-08', 'introduced'],
      ['2026-09', 'introduced'],
    ]);
    const z = Object.fromEntries(r.body.data.map((x: { code: string }) => [x.code, x]));
    expect(Object.keys(z).sort()).toEqual(['R-1', 'R-2', 'VC']);
    for (const x of Object.values(z) as Array<Record<string, unknown>>) expect(x).toMatchObject({ legal_status: 'proposed', effective: { from: null, to: null } });
    const [setback] = z['R-1'].proposed.changes;
    expect(setback).toMatchObject({ field_path: 'standards.dimensional.setback_front', current: { value: { min: 25, unit: 'ft' }, text: '25' }, proposed: { value: { min: 20, unit: 'ft' }, text: '20' }, ordinance: { number: '2026-07' } });
    expect(setback.instruction.citation.passage).toContain('in the row for the R-1 District by striking the minimum front setback of "25" feet');
    expect(z['R-1'].standards.find((s: { type: string }) => s.type === 'dimensional.setback_front')).toMatchObject({ value: { min: 20 }, proposed: true });
    // the land moves on a plan not held: the boundary is withheld, the parcel the address names is given
    const [gains] = z.VC.proposed.changes;
    expect(gains).toMatchObject({ field_path: 'geometry', proposed: { change: 'adds', from: 'R-2', parcel: [parcel['4-15']], land: '221 Main Street' }, ordinance: { number: '2026-08' } });
    expect(z.VC.mapped_area_m2).toBeNull();
    expect(z.VC.proposed.withheld.map((w: { field: string }) => w.field)).toEqual(['effective', 'geometry']);
    expect(z['R-2'].proposed.changes[0].proposed).toMatchObject({ change: 'loses', to: 'VC' });
    // 2026-09 repeals a section: read as an instruction not read, and said so
    const repeal = r.body.pending_ordinance.find((o: { number: string }) => o.number === '2026-09');
    expect(repeal.instruction).toEqual([expect.objectContaining({ state: 'unread', ref: '6.2' })]);
    // as known before v2 was read, only 2026-03 was known to be pending
    const known = await get('/v1/zoning?jurisdiction=millbrook-ma&legal_status=proposed&as_of=2026-04-01&known_as_of=2026-03-20');
    expect(numbers(known)).toEqual(['2026-03']);
    expect(known.body.data).toEqual([]);
    const atPlace = await get(`/v1/zoning?parcel=${parcel['4-15']}&legal_status=proposed`);
    expect(numbers(atPlace)).toEqual(['2026-03']);
  });

  test('coverage names the ordinance texts read, one source each, with what was not read', async () => {
    const r = await get('/coverage?jurisdiction=millbrook-ma&layer=ordinance_text');
    const [layer] = r.body.item;
    expect(layer).toMatchObject({ layer: 'ordinance_text', held: true, tier: 'partial' });
    const sources = Object.fromEntries(layer.source.map((x: { key: string }) => [x.key, x]));
    expect(sources['ordinance-2026-07']).toMatchObject({ held: true, tier: 'full', instructions: 1, unread: 0 });
    expect(sources['ordinance-2026-09']).toMatchObject({ held: true, tier: 'partial', instructions: 1, unread: 1 });
  });
});

describe('knowledge loads', () => {
  test('a reader settles a load whose process died; a live load is left in flight', async () => {
    const j = 'jur_test_knowledge_load';
    await h.pool.query(`INSERT INTO knowledge_load (label, jurisdiction_ids, detected_at) VALUES ('dead', $1, '2020-01-01T00:00:00Z')`, [[j]]);
    const dead = await settledKnowledge(h.pool, '2020-02-01T00:00:00Z', [j, 'jur_other']);
    expect([...dead]).toEqual([[j, '2019-12-31T23:59:59.999999Z']]);
    const row = (await h.pool.query(`SELECT outcome, settled_at FROM knowledge_load WHERE label = 'dead'`)).rows[0];
    expect(row.outcome).toBe('abandoned');
    // a live one: its lock is held, so it stays in flight until it settles itself
    const k = 'jur_test_knowledge_live';
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const load = withKnowledgeLoad(h.pool, { label: 'live', jurisdictionIds: [k], detectedAt: new Date('2021-01-01T00:00:00Z'), clock: () => new Date('2021-01-02T00:00:00Z') }, () => held);
    let live: Map<string, string> = new Map();
    for (let i = 0; i < 100 && live.size === 0; i++) {
      live = await settledKnowledge(h.pool, '2021-06-01T00:00:00Z', [k]);
      if (live.size === 0) await new Promise((r) => setTimeout(r, 10));
    }
    expect([...live]).toEqual([[k, '2020-12-31T23:59:59.999999Z']]);
    expect((await h.pool.query(`SELECT settled_at FROM knowledge_load WHERE label = 'live'`)).rows[0].settled_at).toBeNull();
    release();
    await load;
    expect((await h.pool.query(`SELECT outcome FROM knowledge_load WHERE label = 'live'`)).rows[0].outcome).toBe('committed');
    // settled, its window still decides the instants inside it, and only those
    expect([...(await settledKnowledge(h.pool, '2021-01-01T12:00:00Z', [k]))]).toEqual([[k, '2020-12-31T23:59:59.999999Z']]);
    expect((await settledKnowledge(h.pool, '2021-06-01T00:00:00Z', [k])).size).toBe(0);
  });
});

describe('replay while a load is in flight', () => {
  let site2: SyntheticSite;
  let h2: PipelineHarness;
  let server2: RunningServer;
  let key2: string;
  let lot: string;

  beforeAll(async () => {
    site2 = await startSyntheticSite({ version: 1 });
    h2 = await pipelineHarness('town-inflight', { manifestDir: await syntheticManifests(site2.url) });
    await h2.ingest(['millbrook-ma'], { now: T1 });
    server2 = await startTestServer({ DATABASE_URL: h2.url, RATE_LIMIT_PER_SECOND: '100000' });
    key2 = (await createTestOrg(server2, 100_000)).apiKey;
    lot = (await h2.pool.query(`SELECT id FROM parcel WHERE parcel_key = '4-15'`)).rows[0].id;
  }, 180_000);
  afterAll(async () => {
    await server2?.close();
    await h2?.close();
    await site2?.close();
  });

  test('since=0 with known_as_of=T inside a load gives the same events (and /rule and /place the same items) during the load and after', async () => {
    site2.setVersion(2);
    let done = false;
    // v2 on the real clock: its loads are stamped when they begin
    const ingest = h2.ingest(['millbrook-ma']).finally(() => {
      done = true;
    });
    // T: the instant a load that writes change events began (inside its window)
    let T: string | null = null;
    while (!T && !done) {
      const { rows } = await h2.pool.query(
        `SELECT to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS d FROM knowledge_load
          WHERE settled_at IS NULL AND label ~ '^(zoning-code|zoning-map|ordinances) ' ORDER BY id LIMIT 1`,
      );
      T = rows[0]?.d ?? null;
      if (!T) await new Promise((r) => setTimeout(r, 2));
    }
    expect(T, 'a load writing events was seen in flight').not.toBeNull();
    const paths = [`/change_event?jurisdiction=millbrook-ma&since=0&size=200&known_as_of=${T}`, `/rule?parcel=${lot}&as_of=2026-06-01&known_as_of=${T}`, `/place?parcel=${lot}&as_of=2026-06-01&include=assignment&known_as_of=${T}`];
    const ask = async (p: string) => {
      const r = await call(server2, 'GET', p, { key: key2 });
      expect(r.status).toBe(200);
      return { item: r.body.item, known: r.body.as_of.known_as_of, notice: (r.body.notice ?? []).map((n: { code: string }) => n.code) };
    };
    // and the district tile holding the lot, at the same instant: same bytes, same ETag
    const { rows: at } = await h2.pool.query(
      `SELECT floor((ST_X(p) + 180) / 360 * 65536)::int AS x, floor((1 - ln(tan(radians(ST_Y(p))) + 1 / cos(radians(ST_Y(p)))) / pi()) / 2 * 65536)::int AS y
         FROM (SELECT ST_PointOnSurface(geom) AS p FROM parcel WHERE id = $1 LIMIT 1) q`,
      [lot],
    );
    const tilePath = `/map/district/16/${at[0].x}/${at[0].y}?as_of=2026-06-01&known_as_of=${T}`;
    const tileAsk = async () => {
      const res = await fetch(server2.url + tilePath, { headers: { 'X-API-Key': key2 } });
      return { status: res.status, etag: res.headers.get('etag'), known: res.headers.get('x-known-as-of'), bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
    };
    const during: Array<{ path: string; answer: Awaited<ReturnType<typeof ask>> }> = [];
    const tiles: Array<Awaited<ReturnType<typeof tileAsk>>> = [];
    do {
      for (const path of paths) during.push({ path, answer: await ask(path) });
      tiles.push(await tileAsk());
    } while (!done);
    await ingest;
    expect(during.length).toBeGreaterThanOrEqual(2);
    // T was inside a load's window: answered as known just before it began, and said so
    expect(during.every((d) => d.answer.notice.includes('known_as_of_settled'))).toBe(true);
    for (const d of during) {
      const again = await ask(d.path);
      expect(again, d.path).toEqual(d.answer);
    }
    const tileAfter = await tileAsk();
    expect(tileAfter.status).toBe(200);
    expect(tileAfter.known! < T!).toBe(true);
    for (const t of tiles) expect(t).toEqual(tileAfter);
    // what the load brought is there for a later instant
    const events = (await ask('/change_event?jurisdiction=millbrook-ma&since=0&size=200')).item;
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.every((e: { detected_at: string }) => e.detected_at >= T!)).toBe(true);
    const ruleNow = await ask(`/rule?parcel=${lot}&as_of=2026-06-01`);
    expect(codes(ruleNow.item)).toEqual(['VC']);
    expect(codes(during.find((d) => d.path.startsWith('/rule'))!.answer.item)).toEqual(['R-2']);
  }, 120_000);
});
