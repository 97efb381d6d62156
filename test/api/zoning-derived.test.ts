// Values of /v1/zoning, district composition and /coverage that come from the data: each is shown
// following the data (Cambridge, known from its maps, beside Somerville, known from its zoning
// text; then a row of the test's own database changed). Also the legend's pages and the 422 for
// a query parameter that names nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

interface Town {
  db: { url: string; drop: () => Promise<void> };
  server: RunningServer;
  key: string;
  get: (path: string) => ReturnType<typeof call>;
  sql: (text: string, params?: unknown[]) => Promise<Array<Record<string, any>>>;
}

async function town(label: string, slug: string): Promise<Town> {
  const db = await ingestedDatabase(label, [slug]);
  const server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  const { apiKey: key } = await createTestOrg(server, 100_000);
  return { db, server, key, get: (path) => call(server, 'GET', path, { key }), sql: async (text, params) => (await server.services.pool.query(text, params)).rows };
}

let cambridge: Town;
let somerville: Town;

beforeAll(async () => {
  cambridge = await town('cambridge', 'cambridge-ma');
  somerville = await town('somerville', 'somerville-ma');
}, 300_000);
afterAll(async () => {
  for (const t of [cambridge, somerville]) {
    await t?.server.close();
    await t?.db.drop();
  }
});

type Zoning = Record<string, any>;
const byCode = async (t: Town, query: string, code: string): Promise<Zoning> => {
  const r = await t.get(`/v1/zoning?${query}&size=200`);
  expect(r.status).toBe(200);
  const z = r.body.data.find((x: Zoning) => x.code === code);
  expect(z, code).toBeDefined();
  return z;
};
const field = (withheld: Array<{ field: string; reason: string }>, name: string) => withheld.find((w) => w.field === name)?.reason;

describe('the legend is paged as 4.0.5 says', () => {
  test('size=5 gives five and a cursor; the pages walked give the whole legend once, in order; total counts it', async () => {
    const whole = (await somerville.get('/v1/zoning?jurisdiction=somerville-ma&size=200')).body.data.map((z: Zoning) => z.code);
    expect(whole.length).toBeGreaterThan(10);
    const first = await somerville.get('/v1/zoning?jurisdiction=somerville-ma&size=5&total=true');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, total: { value: whole.length, relation: 'eq' } });
    expect(first.body.data).toHaveLength(5);
    const walked: string[] = first.body.data.map((z: Zoning) => z.code);
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const next = await somerville.get(`/v1/zoning?jurisdiction=somerville-ma&size=5&total=true&cursor=${encodeURIComponent(cursor)}`);
      expect(next.status).toBe(200);
      expect(next.body.total).toBeUndefined(); // first page only
      walked.push(...next.body.data.map((z: Zoning) => z.code));
      cursor = next.body.next_cursor;
      expect(next.body.has_more).toBe(cursor !== null);
    }
    expect(walked).toEqual(whole);
    // GeoJSON pages the same way
    const fc = await somerville.get('/v1/zoning?jurisdiction=somerville-ma&size=5&format=geojson');
    expect(fc.body.features).toHaveLength(5);
    expect(fc.body.has_more).toBe(true);
  });

  test('a cursor is used with the parameters of its first page, unaltered', async () => {
    const first = await somerville.get('/v1/zoning?jurisdiction=somerville-ma&size=5');
    const cursor = encodeURIComponent(first.body.next_cursor);
    const other = await somerville.get(`/v1/zoning?jurisdiction=somerville-ma&kind=base&size=5&cursor=${cursor}`);
    expect([other.status, other.body.errors?.[0]?.field]).toEqual([422, 'cursor']);
    const tampered = await somerville.get(`/v1/zoning?jurisdiction=somerville-ma&size=5&cursor=${cursor}x`);
    expect([tampered.status, tampered.body.errors?.[0]?.field]).toEqual([422, 'cursor']);
  });
});

test('a fips or jurisdiction that names nothing is 422 naming the parameter, not 404', async () => {
  const fips = await cambridge.get('/v1/zoning?fips=25999');
  expect([fips.status, fips.body.code, fips.body.errors[0].field]).toEqual([422, 'parameter_invalid', 'fips']);
  const j = await cambridge.get('/v1/zoning?jurisdiction=no-such-town');
  expect([j.status, j.body.code, j.body.errors[0].field]).toEqual([422, 'parameter_invalid', 'jurisdiction']);
});

describe('precedence and composition follow the store', () => {
  test('no rank held: withheld, the reason saying what is held (a zoning text, or only a map)', async () => {
    const ah = await byCode(somerville, 'jurisdiction=somerville-ma', 'AH');
    expect(ah.precedence).toMatchObject({ rank: null, basis: null, citation: null });
    expect(field(ah.precedence.withheld, 'rank')).toMatch(/zoning text held for Somerville/);
    const overlay = await byCode(cambridge, 'jurisdiction=cambridge-ma&kind=overlay', 'HARVARD SQUARE');
    expect(overlay.precedence).toMatchObject({ rank: null, basis: null });
    expect(field(overlay.precedence.withheld, 'rank')).toMatch(/No zoning text is held for Cambridge; the overlay map/);
    const composition = await somerville.get('/jurisdiction/somerville-ma/district/AH?include=composition');
    expect(composition.body.item.composition.precedence).toEqual(ah.precedence);
  });

  test('a rank held in the store is answered as stated, by /v1/zoning and by the district', async () => {
    await somerville.sql(`UPDATE district SET precedence_rank = 2 WHERE jurisdiction_id = (SELECT id FROM jurisdiction WHERE slug = 'somerville-ma') AND code_normalized = 'AH'`);
    const ah = await byCode(somerville, 'jurisdiction=somerville-ma', 'AH');
    expect(ah.precedence).toMatchObject({ rank: 2, basis: 'stated', citation: null });
    expect(field(ah.precedence.withheld, 'citation')).toMatch(/rank of AH/);
    const composition = await somerville.get('/jurisdiction/somerville-ma/district/AH?include=composition');
    expect(composition.body.item.composition.precedence).toMatchObject({ rank: 2, basis: 'stated' });
    const list = await somerville.get('/jurisdiction/somerville-ma/district?kind=overlay&include=composition');
    expect(list.body.item.find((d: Zoning) => d.code_normalized === 'FP').composition.precedence.rank).toBeNull();
  });
});

test('ordinance.adopted is withheld where no ordinance is held, saying so', async () => {
  const z = await byCode(cambridge, 'jurisdiction=cambridge-ma&kind=base', 'C-1');
  expect(z.ordinance).toMatchObject({ adopted: null, adopted_by: null });
  expect(field(z.ordinance.withheld, 'adopted')).toBe('No ordinance of Cambridge is held, so the one that adopted C-1 is not known.');
});

describe('applies_over follows the map held', () => {
  test('an overlay a map draws applies over its mapped area, citing the map; one no map draws is withheld', async () => {
    const drawn = await byCode(cambridge, 'jurisdiction=cambridge-ma&kind=overlay', 'HARVARD SQUARE');
    expect(drawn.applies_over).toMatchObject({ scope: 'mapped_area', codes: null });
    expect(drawn.applies_over.citation.passage).toContain('Harvard Square');
    expect(field(drawn.applies_over.withheld, 'codes')).toMatch(/No zoning text is held for Cambridge/);
    expect(field(drawn.applies_over.withheld, 'scope')).toBeUndefined();
    const base = await byCode(cambridge, 'jurisdiction=cambridge-ma&kind=base', 'C-1');
    expect(base.applies_over).toBeNull();

    const text = await byCode(somerville, 'jurisdiction=somerville-ma', 'FP');
    expect(text.applies_over).toMatchObject({ scope: null, codes: null, citation: null });
    expect(field(text.applies_over.withheld, 'scope')).toMatch(/No map held draws FP/);
    expect(field(text.applies_over.withheld, 'codes')).toMatch(/not read from the zoning text held for Somerville/);
  });

  test('once the map no longer draws the overlay (as known now), its scope is withheld', async () => {
    await cambridge.sql(
      `UPDATE district_area SET known = tstzrange(lower(known), now()) WHERE upper_inf(known) AND district_id = (SELECT id FROM district WHERE kind = 'overlay' AND code_normalized = 'PATHWAY' LIMIT 1)`,
    );
    const gone = await byCode(cambridge, 'jurisdiction=cambridge-ma&kind=overlay', 'PATHWAY');
    expect(gone.mapped_area_m2).toBeNull();
    expect(gone.applies_over).toMatchObject({ scope: null, citation: null });
    expect(field(gone.applies_over.withheld, 'scope')).toMatch(/No map held draws PATHWAY/);
  });
});

describe('the authority layer of /coverage follows the authorities held', () => {
  const authority = async (t: Town, slug: string) => {
    const r = await t.get(`/coverage?jurisdiction=${slug}&layer=authority`);
    expect(r.status).toBe(200);
    return r.body.item[0];
  };

  test('tier and source from the rows: partial where some subjects have no authority held, the manifest version cited', async () => {
    const layer = await authority(cambridge, 'cambridge-ma');
    expect(layer).toMatchObject({ layer: 'authority', held: true, tier: 'partial', subjects: ['building_code', 'zoning'], subjects_not_held: ['subdivision', 'fire_code'] });
    const [version] = await cambridge.sql(`SELECT DISTINCT source_version_id AS v FROM authority`);
    expect(layer.source).toEqual([expect.objectContaining({ key: 'manifest', kind: 'manifest', authorship: 'authored_by_us', version: version.v, subjects: ['building_code', 'zoning'] })]);
    expect((await authority(somerville, 'somerville-ma')).subjects).toEqual(['zoning']);
  });

  test('authorities for every subject make it full; none held makes it none', async () => {
    await somerville.sql(
      `INSERT INTO authority (id, content_sha256, source_id, jurisdiction_id, subject, governing_jurisdiction_id, basis, citation_id, source_version_id, valid, known)
       SELECT a.id || s.subject, a.content_sha256, a.source_id, a.jurisdiction_id, s.subject, a.governing_jurisdiction_id, a.basis, a.citation_id, a.source_version_id, a.valid, a.known
         FROM authority a, (VALUES ('subdivision'), ('building_code'), ('fire_code')) s(subject)`,
    );
    expect(await authority(somerville, 'somerville-ma')).toMatchObject({ held: true, tier: 'full', subjects_not_held: [] });
    await somerville.sql(`UPDATE authority SET known = tstzrange(lower(known), now()) WHERE upper_inf(known)`);
    expect(await authority(somerville, 'somerville-ma')).toMatchObject({ held: false, tier: 'none' });
  });
});
