// The synthetic town through the whole pipeline over HTTP: version 1, an unchanged re-run,
// version 2 (an amendment, a rezoning, a repeal, a moratorium, new records), the exact change
// events, both time axes, and sources that fail without losing what is held.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { JurisdictionOutcome, SourceOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let v1: JurisdictionOutcome;
let v2: JurisdictionOutcome;
const T1 = new Date('2026-03-05T12:00:00Z');
const T1b = new Date('2026-03-20T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');
const T2b = new Date('2026-04-28T12:00:00Z');
const src = (o: JurisdictionOutcome, key: string) => o.sources.find((s) => s.source === key) as SourceOutcome;

async function districtOf(parcelKey: string, asOf: string, knownAsOf: Date) {
  const { rows } = await h.pool.query(
    `SELECT a.code_raw FROM parcel p JOIN district_area a ON ST_Covers(a.geom, ST_PointOnSurface(p.geom))
      WHERE p.parcel_key = $1 AND a.kind = 'base' AND a.valid @> $2::date AND a.known @> $3::timestamptz
        AND p.known @> $3::timestamptz AND upper_inf(p.valid)`,
    [parcelKey, asOf, knownAsOf.toISOString()],
  );
  return rows.map((r) => r.code_raw);
}

const eventsAfter = async (seq: number) =>
  (await h.pool.query(`SELECT kind, layer, field_path, effective_date::text, adopted_on::text, ordinance_id, subject, previous, current FROM change_event WHERE seq > $1 ORDER BY seq`, [seq])).rows;

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('synthetic', { manifestDir: await syntheticManifests(site.url) });
  [v1] = await h.ingest(['millbrook-ma'], { now: T1 });
}, 120_000);
afterAll(async () => {
  await h.close();
  await site.close();
});

describe('version 1', () => {
  test('every record source loads with the counts the site publishes', () => {
    expect(src(v1, 'zoning-map')).toMatchObject({ state: 'loaded', counts: { features: 4, areas: 4 } });
    expect(src(v1, 'parcels')).toMatchObject({ state: 'loaded', counts: { features: 21, dropped: 0 } });
    expect(src(v1, 'ordinances')).toMatchObject({ state: 'loaded', counts: { ordinances: 5, moratoriums: 0 } });
    expect(src(v1, 'assessor-roll').counts).toMatchObject({ rows: 22, rejected: 0, unmatched: 0 });
    expect(src(v1, 'registry-index').counts).toMatchObject({ instruments: 12, transactions: 10, sale: 5, transfer: 3, mortgage: 1, assignment: 1 });
    expect(src(v1, 'permits').counts).toMatchObject({ permits: 4, applications: 2 });
    expect(src(v1, 'cases').counts).toMatchObject({ cases: 3 });
    expect(v1.sources.every((s) => s.newEvents === 0)).toBe(true);
  });

  test('the code text: districts with purposes, Table 4.1 through its legend, Table 5.1, the unlisted-use rule', async () => {
    expect(src(v1, 'zoning-code')).toMatchObject({ state: 'loaded', counts: { districts: 4, permissions: 48, controls: 36, unmapped_labels: 0 } });
    const d = await h.pool.query(`SELECT code_raw, local_label, purpose FROM district WHERE code_raw = 'VC' AND purpose IS NOT NULL`);
    expect(d.rows[0].purpose).toMatch(/^The Village Center District is intended to sustain a compact, walkable center/);
    const p = await h.pool.query(
      `SELECT d.code_raw, p.symbol, p.level, p.process, p.use_slug FROM permission p JOIN district d ON d.id = p.district_id AND d.source_id = p.source_id AND upper_inf(d.known)
        WHERE p.use_label_raw = 'Battery energy storage system' AND upper_inf(p.known) ORDER BY d.code_raw`,
    );
    expect(p.rows).toEqual([
      { code_raw: 'I-1', symbol: 'SP', level: 'conditional_use', process: 'Permitted by special permit from the Planning Board', use_slug: 'energy.battery_storage' },
      { code_raw: 'R-1', symbol: 'N', level: 'prohibited', process: null, use_slug: 'energy.battery_storage' },
      { code_raw: 'R-2', symbol: 'N', level: 'prohibited', process: null, use_slug: 'energy.battery_storage' },
      { code_raw: 'VC', symbol: 'N', level: 'prohibited', process: null, use_slug: 'energy.battery_storage' },
    ]);
    const c = await h.pool.query(
      `SELECT c.control_type, c.min_value::float AS min, c.max_value::float AS max, c.unit, c.value_text FROM control c JOIN district d ON d.id = c.district_id AND d.source_id = c.source_id AND upper_inf(d.known)
        WHERE d.code_raw = 'R-1' AND c.control_type IN ('dimensional.setback_front', 'dimensional.height', 'dimensional.lot_area') AND upper_inf(c.known) ORDER BY 1`,
    );
    expect(c.rows).toEqual([
      { control_type: 'dimensional.height', min: null, max: 35, unit: 'ft', value_text: '35' },
      { control_type: 'dimensional.lot_area', min: 40000, max: null, unit: 'sq_ft', value_text: '40,000' },
      { control_type: 'dimensional.setback_front', min: 25, max: null, unit: 'ft', value_text: '25' },
    ]);
    const u = await h.pool.query(`SELECT u.result, c.quote FROM unlisted_use_rule u JOIN citation c ON c.id = u.citation_id`);
    expect(u.rows).toEqual([{ result: 'prohibited', quote: 'A use not listed in Table 4.1 is not permitted in any district.' }]);
  });

  test('every citation of the code text quotes its retained text verbatim at its offsets', async () => {
    const { rows } = await h.pool.query(
      `SELECT c.quote, (c.locator->>'start')::int AS start, (c.locator->>'end')::int AS end, t.text FROM citation c JOIN version_text t ON t.version_id = c.version_id`,
    );
    expect(rows.length).toBeGreaterThan(80);
    const wrong = rows.filter((r) => r.text.slice(r.start, r.end) !== r.quote);
    expect(wrong).toEqual([]);
  });

  test('the map was published in EPSG:26986 and lands in lon/lat on the town', async () => {
    const { rows } = await h.pool.query(`SELECT published_crs, feature_count FROM map_version WHERE layer = 'district'`);
    expect(rows).toEqual([{ published_crs: 'EPSG:26986', feature_count: 4 }]);
    expect(await districtOf('4-15', '2026-03-10', T1b)).toEqual(['R-2']);
    const c = await h.pool.query(`SELECT ST_Y(ST_Centroid(geom)) AS lat, ST_X(ST_Centroid(geom)) AS lon FROM parcel WHERE parcel_key = '4-15'`);
    expect(c.rows[0].lat).toBeCloseTo(42.621706, 3);
    expect(c.rows[0].lon).toBeCloseTo(-71.493446, 3);
  });

  test('re-ingesting unchanged sources makes no version, fact or event (conditional requests answered 304)', async () => {
    const before = await h.pool.query(`SELECT (SELECT count(*) FROM document_version) AS v, (SELECT count(*) FROM change_event) AS e, (SELECT count(*) FROM district_area) + (SELECT count(*) FROM parcel) + (SELECT count(*) FROM property) + (SELECT count(*) FROM ordinance) AS f`);
    const seen = site.requests.length;
    const [again] = await h.ingest(['millbrook-ma'], { now: T1b });
    expect(again.sources.filter((s) => s.state !== 'failed').every((s) => s.state === 'unchanged' && !s.newVersion)).toBe(true);
    const after = await h.pool.query(`SELECT (SELECT count(*) FROM document_version) AS v, (SELECT count(*) FROM change_event) AS e, (SELECT count(*) FROM district_area) + (SELECT count(*) FROM parcel) + (SELECT count(*) FROM property) + (SELECT count(*) FROM ordinance) AS f`);
    expect(after.rows[0]).toEqual(before.rows[0]);
    expect(site.requests.slice(seen).filter((r) => r.status === 304).length).toBeGreaterThanOrEqual(6);
  });
});

describe('version 2', () => {
  let seq = 0;
  beforeAll(async () => {
    seq = Number((await h.pool.query('SELECT COALESCE(max(seq), 0) AS s FROM change_event')).rows[0].s);
    site.setVersion(2);
    [v2] = await h.ingest(['millbrook-ma'], { now: T2 });
  }, 120_000);

  test('the rezoning: two map changes, dated by the map amendment, linked to it', async () => {
    const events = (await eventsAfter(seq)).filter((e) => e.kind === 'map_change');
    expect(events.map((e) => [e.layer, e.field_path, e.effective_date, e.adopted_on])).toEqual([
      ['district_map', 'district_map.R-2.area', '2026-05-15', '2026-04-14'],
      ['district_map', 'district_map.VC.area', '2026-05-15', '2026-04-14'],
    ]);
    expect(events[0].previous.area_m2 - events[0].current.area_m2).toBeCloseTo(20_000, -2);
    expect(events[1].current.area_m2 - events[1].previous.area_m2).toBeCloseTo(20_000, -2);
    const ord = await h.pool.query('SELECT number FROM ordinance WHERE id = $1 LIMIT 1', [events[0].ordinance_id]);
    expect(ord.rows[0].number).toBe('2026-08');
  });

  test('the amendment: the R-1 front setback 25 → 20 ft, effective 2026-05-01 by Ordinance 2026-07, and nothing else in the tables', async () => {
    expect(src(v2, 'zoning-code')).toMatchObject({ state: 'loaded', newEvents: 3, counts: { fact_added: 0, fact_changed: 1, fact_removed: 1 } });
    const events = (await eventsAfter(seq)).filter((e) => e.field_path.startsWith('district.') && e.field_path.includes('.control.'));
    expect(events.map((e) => [e.kind, e.layer, e.field_path, e.previous, e.current, e.effective_date, e.adopted_on])).toEqual([
      ['amendment', 'district', 'district.R-1.control.dimensional.setback_front.min_value', 25, 20, '2026-05-01', '2026-04-14'],
      ['amendment', 'district', 'district.R-1.control.dimensional.setback_front.value_text', '25', '20', '2026-05-01', '2026-04-14'],
    ]);
    const ord = await h.pool.query('SELECT number FROM ordinance WHERE id = $1 LIMIT 1', [events[0].ordinance_id]);
    expect(ord.rows[0].number).toBe('2026-07');
    expect((await eventsAfter(seq)).filter((e) => e.field_path.includes('.permission.'))).toEqual([]);
    const setback = async (asOf: string, known: Date) =>
      (
        await h.pool.query(
          `SELECT c.min_value::float AS min FROM control c JOIN district d ON d.id = c.district_id AND d.source_id = c.source_id AND upper_inf(d.known)
            WHERE d.code_raw = 'R-1' AND c.control_type = 'dimensional.setback_front' AND c.valid @> $1::date AND c.known @> $2::timestamptz`,
          [asOf, known.toISOString()],
        )
      ).rows.map((r) => r.min);
    expect(await setback('2026-04-30', T2b)).toEqual([25]);
    expect(await setback('2026-05-01', T2b)).toEqual([20]);
    expect(await setback('2026-05-01', T1b)).toEqual([25]);
  });

  test('the repeal: Section 6.2 ends 2026-06-01 by Ordinance 2026-09; no other section changes', async () => {
    const events = (await eventsAfter(seq)).filter((e) => e.field_path.startsWith('section.'));
    expect(events.map((e) => [e.kind, e.field_path, e.effective_date, e.adopted_on, e.current])).toEqual([['repeal', 'section.6.2', '2026-06-01', '2026-04-14', null]]);
    const ord = await h.pool.query('SELECT number FROM ordinance WHERE id = $1 LIMIT 1', [events[0].ordinance_id]);
    expect(ord.rows[0].number).toBe('2026-09');
    const inForce = async (asOf: string) => (await h.pool.query(`SELECT count(*)::int AS n FROM section WHERE ref = '6.2' AND valid @> $1::date AND known @> $2::timestamptz`, [asOf, T2b.toISOString()])).rows[0].n;
    expect(await inForce('2026-05-31')).toBe(1);
    expect(await inForce('2026-06-01')).toBe(0);
  });

  test('the moratorium: an adoption effective 2026-04-15, linked to its ordinance', async () => {
    const events = (await eventsAfter(seq)).filter((e) => e.field_path === 'moratorium');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'adoption', effective_date: '2026-04-15', adopted_on: '2026-04-14' });
    const m = await h.pool.query(`SELECT title, use_labels, area IS NULL AS town_wide, lower(valid)::text AS f, upper(valid)::text AS t FROM moratorium`);
    expect(m.rows[0]).toMatchObject({ town_wide: true, f: '2026-04-15', t: '2027-04-15', use_labels: ['Battery energy storage system'] });
  });

  test('no event for what did not change (parcels, roll, cases, other districts, the records)', async () => {
    const paths = (await eventsAfter(seq)).map((e) => e.field_path);
    expect(paths.some((p) => /R-1|I-1/.test(p) && p.startsWith('district_map'))).toBe(false);
    for (const key of ['parcels', 'assessor-roll', 'cases']) expect(src(v2, key)).toMatchObject({ state: 'unchanged', newEvents: 0 });
    expect(src(v2, 'registry-index')).toMatchObject({ state: 'loaded', newEvents: 0, counts: { transaction_added: 1 } });
    expect(src(v2, 'permits')).toMatchObject({ state: 'loaded', newEvents: 0 });
  });

  test('both time axes: 4-15 was R-2 before 2026-05-15 and VC from it; before v2 was known, R-2 throughout', async () => {
    expect(await districtOf('4-15', '2026-05-14', T2b)).toEqual(['R-2']);
    expect(await districtOf('4-15', '2026-05-15', T2b)).toEqual(['VC']);
    expect(await districtOf('4-15', '2026-06-01', T1b)).toEqual(['R-2']);
    expect(await districtOf('2-2', '2026-06-01', T2b)).toEqual(['R-1']);
  });

  test('the new deed is a sale in cents', async () => {
    const { rows } = await h.pool.query(`SELECT kind, consideration_cents, sale_date::text FROM transaction WHERE instrument_number = '2026-000480'`);
    expect(rows).toEqual([{ kind: 'sale', consideration_cents: 52_900_000, sale_date: '2026-04-16' }]);
  });

  test('re-ingesting version 2 makes nothing new', async () => {
    const count = async () => Number((await h.pool.query('SELECT count(*) AS n FROM change_event')).rows[0].n);
    const before = await count();
    const [again] = await h.ingest(['millbrook-ma'], { now: T2b });
    expect(again.sources.filter((s) => s.state !== 'failed').every((s) => s.state === 'unchanged')).toBe(true);
    expect(await count()).toBe(before);
  });
});

describe('failing sources', () => {
  test('500, 404 and a hang are reported with their reason; what is held stays', async () => {
    const held = async () => Number((await h.pool.query(`SELECT count(*) AS n FROM district_area WHERE upper_inf(known)`)).rows[0].n);
    const before = await held();
    site.fail('/gis/zoning.geojson', 500);
    site.fail('/gis/parcels.geojson', 404);
    site.fail('/assessor/roll.csv', 'hang');
    const [r] = await h.ingest(['millbrook-ma'], { now: new Date('2026-05-01T12:00:00Z') });
    site.heal();
    expect(src(r, 'zoning-map')).toMatchObject({ state: 'failed', stage: 'fetch', error: expect.stringMatching(/500/) });
    expect(src(r, 'parcels')).toMatchObject({ state: 'failed', error: expect.stringMatching(/404/) });
    expect(src(r, 'assessor-roll')).toMatchObject({ state: 'failed', error: expect.stringMatching(/timed out/) });
    expect(await held()).toBe(before);
    const cov = await h.pool.query(`SELECT detail->'sources'->'zoning-map'->'problem'->>'reason' AS reason FROM coverage WHERE layer = 'district_map'`);
    expect(cov.rows[0].reason).toMatch(/500/);
  });
});
