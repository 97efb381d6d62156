// Town-local browsing over real data: Somerville (known from its zoning text alone) and Cambridge
// (known from its district list and maps, with a building code the state governs). Definitions,
// map references and the codes in force each follow what is held, and say why where nothing is.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, cambridgeApi, createTestOrg, startTestServer } from '../helpers/server.ts';

interface Town {
  server: RunningServer;
  get: (path: string) => ReturnType<typeof call>;
  sql: (text: string, params?: unknown[]) => Promise<Array<Record<string, any>>>;
  close: () => Promise<void>;
}

let somerville: Town;
let cambridge: Town;

beforeAll(async () => {
  const db = await ingestedDatabase('somerville', ['somerville-ma']);
  const server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  const { apiKey } = await createTestOrg(server, 100_000);
  somerville = {
    server,
    get: (path) => call(server, 'GET', path, { key: apiKey }),
    sql: async (text, params) => (await server.services.pool.query(text, params)).rows,
    close: async () => {
      await server.close();
      await db.drop();
    },
  };
  const c = await cambridgeApi(100_000);
  cambridge = { server: c.server, get: (path) => call(c.server, 'GET', path, { key: c.key }), sql: async (text, params) => (await c.server.services.pool.query(text, params)).rows, close: c.close };
}, 600_000);
afterAll(async () => {
  await somerville?.close();
  await cambridge?.close();
});

describe('Somerville: the zoning text held, no map', () => {
  test('NR is defined by its own section: the character description, intent and purpose subsections, each cited', async () => {
    const r = await somerville.get('/jurisdiction/somerville-ma/district/NR?include=definition');
    expect(r.status).toBe(200);
    const d = r.body.item.definition;
    expect(d.status).toBe('stated');
    expect(d.passage.map((p: { source: string; section_ref: string; heading: string }) => [p.source, p.section_ref, p.heading])).toEqual([
      ['district_section', '3.1.1', 'Character Description'],
      ['district_section', '3.1.2', 'Intent'],
      ['district_section', '3.1.3', 'Purpose'],
    ]);
    // the purpose passage is the district's purpose as read, and each citation is that section's
    expect(d.passage[2].text.startsWith(r.body.item.purpose.slice(0, 80))).toBe(true);
    for (const p of d.passage) expect(p.citation).toMatchObject({ section_ref: p.section_ref, href: expect.stringMatching(/^\/citation\/cit_/) });
    const held = await somerville.sql(`SELECT body FROM section WHERE ref = '3.1.2' AND upper_inf(known) AND upper_inf(valid)`);
    expect(d.passage[1].text).toBe(held[0].body.trim());
  });

  test('NP, given only a row of the districts table (2.2.1), is withheld with why; no map is held, and that is said', async () => {
    const r = await somerville.get('/jurisdiction/somerville-ma/district/NP?include=definition');
    expect(r.status).toBe(200);
    expect(r.body.item.definition).toEqual({
      status: 'withheld',
      passage: [],
      reason: `Section 2.2.1 (Zoning Districts), given for NP in the zoning text held for Somerville, is headed neither for NP nor for a purpose, and none of the 3 definitions sections in force defines NP.`,
    });
    expect(r.body.item.map).toEqual({ status: 'withheld', drawn_by: [], reason: `No zoning map of Somerville is held as known at ${r.body.as_of.known_as_of}.` });
    expect(r.body.coverage.layer).toMatchObject({ zoning_text: { held: true, tier: 'full' }, district_map: { held: false, tier: 'none' }, overlay: { held: false } });
  });

  test('the list gives each district its definition: stated for those with a section of their own', async () => {
    const r = await somerville.get('/jurisdiction/somerville-ma/district?include=definition&size=50');
    expect(r.status).toBe(200);
    const status = Object.fromEntries(r.body.item.map((i: Record<string, any>) => [i.code_normalized, i.definition.status]));
    expect(status.NP).toBe('withheld');
    const stated = Object.entries(status).filter(([, s]) => s === 'stated').map(([c]) => c);
    expect(stated).toEqual(expect.arrayContaining(['NR', 'UR', 'MR3', 'HR', 'CC', 'AH', 'FP']));
    expect(stated.length).toBe(r.body.item.length - 1);
  });

  test('GET /code/zoning: the outline of the ordinance, every section in force in order, each with its citation', async () => {
    const r = await somerville.get('/code/zoning?jurisdiction=somerville-ma');
    expect(r.status).toBe(200);
    expect(r.body.item.code).toHaveLength(1);
    const code = r.body.item.code[0];
    const held = await somerville.sql(`SELECT ref, heading, citation_id FROM section WHERE upper_inf(known) AND upper_inf(valid) ORDER BY ordinal, ref`);
    expect(code).toMatchObject({ kind: 'zoning', title: 'Somerville Zoning Ordinance', section_count: held.length, adoption: { level: 'local', name: 'Somerville' } });
    expect(code.outline.section.map((s: { ref: string }) => s.ref)).toEqual(held.map((s) => s.ref));
    const nr = code.outline.section.find((s: { ref: string }) => s.ref === '3.1');
    expect(nr).toMatchObject({ heading: 'NEIGHBORHOOD RESIDENCE (NR)', parent_ref: '3', citation: { id: held.find((s) => s.ref === '3.1')!.citation_id } });
    const listed = await somerville.get('/jurisdiction/somerville-ma/code');
    expect(listed.body.item.map((i: { kind: string }) => i.kind)).toEqual(['zoning']);
    expect(listed.body.layer.find((l: { layer: string }) => l.layer === 'building').reason).toMatch(/^No source held for Somerville, its manifest included, names who governs its building code/);
  });
});

describe('Cambridge: a district list and maps, no zoning text; a state building code', () => {
  test('a district on the map names the map version drawing it; one the map never draws says so', async () => {
    const versions = await cambridge.sql(`SELECT id, layer, document_id, version_id FROM map_version WHERE layer IN ('district', 'overlay') ORDER BY layer`);
    const base = versions.find((v) => v.layer === 'district')!;
    const overlay = versions.find((v) => v.layer === 'overlay')!;
    const ba4 = await cambridge.get('/jurisdiction/cambridge-ma/district/BA-4');
    expect(ba4.body.item.map).toEqual({
      status: 'stated',
      drawn_by: [expect.objectContaining({ id: base.id, layer: 'district', document: base.document_id, version: base.version_id, effective_through: null, href: '/map?jurisdiction=cambridge-ma&layer=district' })],
    });
    const aod = await cambridge.get('/jurisdiction/cambridge-ma/district/AOD-6');
    expect(aod.body.item.map.drawn_by.map((m: { id: string; layer: string }) => [m.id, m.layer])).toEqual([[overlay.id, 'overlay']]);
    // A-1 is in the district list; no polygon of either map carries it
    const a1 = await cambridge.get('/jurisdiction/cambridge-ma/district/A-1');
    expect(a1.body.item.map).toEqual({ status: 'withheld', drawn_by: [], reason: `None of the zoning maps of Cambridge in force (${base.id}, district; ${overlay.id}, overlay) draws A-1.` });
  });

  test('without a zoning text, the definition is withheld, naming where the district is known from', async () => {
    const r = await cambridge.get('/jurisdiction/cambridge-ma/district/BA-4?include=definition');
    expect(r.body.item.definition).toEqual({
      status: 'withheld',
      passage: [],
      reason: `No zoning text of Cambridge is held as known at ${r.body.as_of.known_as_of}, and a definition is read only from a code's text; BA-4 is known from the district list.`,
    });
  });

  test('the list over an interval: nothing before the data took effect, then each district as read; pages of 25', async () => {
    const from = (await cambridge.sql(`SELECT min(lower(valid))::text AS d FROM district`))[0].d as string;
    const start = `${Number(from.slice(0, 4)) - 1}-01-01`;
    const r = await cambridge.get(`/jurisdiction/cambridge-ma/district?as_of=${encodeURIComponent(`from:${start} to:${from}`)}`);
    expect(r.status).toBe(200);
    expect(r.body.item).toHaveLength(25);
    expect(r.body.page.next_cursor).toEqual(expect.any(String));
    const dayBefore = new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    for (const i of r.body.item) {
      expect(i.segment.map((s: { from: string; to: string; district: unknown }) => [s.from, s.to, s.district === null])).toEqual([
        [start, dayBefore, true],
        [from, from, false],
      ]);
      expect(i.segment[1].district).toMatchObject({ id: i.id, code_normalized: i.code_normalized, map: { status: expect.any(String) } });
    }
    expect(r.body.coverage.layer).toMatchObject({ district_list: { held: true }, district_map: { held: true }, overlay: { held: true }, zoning_text: { held: false } });
  });

  test('the codes: the state building code applies (adoption level state, edition withheld); no zoning text, so /code/zoning is 501', async () => {
    const r = await cambridge.get('/jurisdiction/cambridge-ma/code');
    expect(r.status).toBe(200);
    const ma = (await cambridge.sql(`SELECT id FROM jurisdiction WHERE fips_key = 'us:state:25'`))[0].id;
    expect(r.body.item).toEqual([
      expect.objectContaining({
        kind: 'building',
        title: 'state building code (780 CMR) enforced locally',
        adoption: { level: 'state', jurisdiction: ma, name: 'Massachusetts' },
        edition: { status: 'withheld', reason: 'The manifest naming Massachusetts as governing the building code of Cambridge states no edition, and no text of that code is held.' },
        citation: expect.objectContaining({ href: expect.stringMatching(/^\/citation\/cit_/) }),
        href: '/code/building?jurisdiction=cambridge-ma',
      }),
    ]);
    expect(r.body.layer.find((l: { layer: string }) => l.layer === 'zoning').reason).toBe('No code text of Cambridge is held: no code_text source of it is named.');
    expect(r.body.coverage.layer.authority).toMatchObject({ held: true, subjects: ['building_code', 'zoning'] });
    const building = await cambridge.get('/code/building?jurisdiction=cambridge-ma');
    expect(building.status).toBe(200);
    expect(building.body.item.code[0].outline).toEqual({ status: 'withheld', section: [], reason: 'No text of the state building code (780 CMR) enforced locally is held for Cambridge: the manifest names only who governs it.' });
    const zoning = await cambridge.get('/code/zoning?jurisdiction=cambridge-ma');
    expect(zoning.status).toBe(501);
    expect(zoning.body.detail.error).toMatchObject({ code: 'not_available', field: 'kind', detail: 'No code text of Cambridge is held: no code_text source of it is named.' });
    // before the authority took effect, the building code is not in force either
    const early = await cambridge.get('/jurisdiction/cambridge-ma/code?kind=building&as_of=2000-01-01');
    expect(early.body.item).toEqual([]);
    expect(early.body.layer[0].reason).toMatch(/^The building code authority held for Cambridge is in force \d{4}-\d{2}-\d{2} to now; not on 2000-01-01\.$/);
  });
});

describe('a permit process as the code text states it', () => {
  const lines = (f: { passage: Array<{ section_ref: string; text: string }> }) => f.passage.map((p) => `${p.section_ref}: ${p.text}`);

  test('Somerville special permit: the decision-making authority, the hearing and notice steps and the appeals, quoted from 15.2.1, with where to read on', async () => {
    const r = await somerville.get('/process/special_permit?jurisdiction=somerville-ma');
    expect(r.status).toBe(200);
    const p = r.body.item;
    expect(p).toMatchObject({ type: 'special_permit', name: 'Special Permit', basis: 'heading', jurisdiction: { slug: 'somerville-ma' } });
    expect(p.section.map((s: { ref: string }) => s.ref)).toEqual(['15.2.1']);
    expect(p.section[0].citation).toMatchObject({ section_ref: '15.2.1' });
    // the code says the deciding board depends on the district: no body is named, and none is invented
    expect(p.decides).toMatchObject({ status: 'stated', body: [] });
    expect(lines(p.decides)).toEqual(['15.2.1: The review board serving as the decision making authority for a Special Permit is determined by zoning district.']);
    expect(lines(p.hearing)).toEqual(['15.2.1: Step 4: Public Hearing']);
    expect(lines(p.notice)).toEqual(['15.2.1: Step 3: Public Notice']);
    expect(lines(p.appeal)).toContain('15.2.1: An aggrieved party may appeal the decision of the Zoning Board of Appeals or Planning Board in accordance with § 15.5.3 Judicial Appeal.');
    expect(p.see).toEqual(expect.arrayContaining([
      { ref: '15.1.7', heading: 'Public Notice' },
      { ref: '15.1.8', heading: 'Public Hearing' },
      { ref: '15.5.2', heading: 'Administrative Appeal' },
      { ref: '15.5.3', heading: 'Judicial Appeal' },
    ]));
    expect(p.related).toEqual([{ ref: '15.2.2', heading: 'Master Plan Special Permit' }]);
    // every passage is a sentence of the section's text as held
    const body = (await somerville.sql(`SELECT body FROM section WHERE ref = '15.2.1' AND upper_inf(known) AND upper_inf(valid)`))[0].body as string;
    for (const f of [p.decides, p.hearing, p.notice, p.appeal]) for (const x of f.passage) expect(body).toContain(x.text);
  });

  test('Somerville variance: the Hardship Variance section, decided by the Zoning Board of Appeals (whose name is no appeal)', async () => {
    const r = await somerville.get('/process/variance?jurisdiction=somerville-ma');
    expect(r.body.item).toMatchObject({ name: 'Hardship Variance', basis: 'heading', decides: { status: 'stated', body: ['Zoning Board of Appeals'] } });
    expect(lines(r.body.item.decides)).toContain('15.2.3: The Zoning Board of Appeals is the review board for all Hardship Variances.');
    expect(lines(r.body.item.appeal)).not.toContain('15.2.3: The Zoning Board of Appeals is the review board for all Hardship Variances.');
  });

  test('a process the code names nowhere is 404; a town without a code text held is 501 with why', async () => {
    const none = await somerville.get('/process/liquor_license?jurisdiction=somerville-ma');
    expect(none.status).toBe(404);
    expect(none.body.detail.error).toMatchObject({ code: 'no_such_resource', field: 'type' });
    const cambridgeProcess = await cambridge.get('/process/special_permit?jurisdiction=cambridge-ma');
    expect(cambridgeProcess.status).toBe(501);
    expect(cambridgeProcess.body.detail.error).toMatchObject({ code: 'not_available', field: 'jurisdiction', detail: 'No code text of Cambridge is held: no code_text source of it is named.' });
  });
});
