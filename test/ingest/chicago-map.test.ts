// Chicago's citywide zoning map as published on 2024-10-21 and again on 2025-04-17, through the
// pipeline into PostGIS. The two files were simplified separately, so nearly every polygon
// differs; map_change events come only for districts whose drawing moved by more than a
// redrawing does (MAP_CHANGE_MIN_WIDTH_M).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import type { JurisdictionOutcome } from '../../workflows/logic.ts';
import { ingestedDatabase, type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';
import { type PlacedSource, placedSource } from '../helpers/placed.ts';

const file = (day: string) => resolve(sharedDir(), `real/chicago_il/chicago-zoning-${day}-simple.geojson.gz`);
const compact = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');
const chicagoDate = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' }).format(d);

let placed: PlacedSource;
let h: PipelineHarness;
let second: JurisdictionOutcome;
let loadedAt: Date;
type Side = { area_m2: number; polygons: number };
let events: Array<{ code: string; previous: Side; current: Side; effective_date: string }>;

// the 2024-10-21 map (with Chapter 17-2) as every Chicago test loads it, then the 2025-04-17 map
// published in its place, the same day
beforeAll(async () => {
  const database = await ingestedDatabase('chicago', ['chicago-il']);
  placed = await placedSource('chicago-il', 'zoning-map', await readFile(file('2025-04-17')));
  h = await pipelineHarness('chicago_map', { manifestDir: placed.manifestDir, database });
  // published the same day as the first map took effect: the change is measured against the map known for that day
  loadedAt = new Date();
  [second] = await h.ingest(['chicago-il'], { now: loadedAt });
  const { rows } = await h.pool.query(
    `SELECT subject->>'code' AS code, previous, current, effective_date::text FROM change_event WHERE kind = 'map_change' AND layer = 'district_map' ORDER BY seq`,
  );
  events = rows;
}, 300_000);
afterAll(async () => {
  await h?.close();
  await placed?.close();
});

test('the first map loads every polygon (gzip as published) and is no change', async () => {
  const { rows } = await h.pool.query(
    `SELECT m.feature_count, (SELECT count(*)::int FROM change_event e WHERE e.layer = 'district_map' AND e.seq < (SELECT min(seq) FROM change_event WHERE kind = 'map_change')) AS before
       FROM map_version m JOIN jurisdiction j ON j.id = m.jurisdiction_id WHERE j.slug = 'chicago-il' AND m.layer = 'district' ORDER BY lower(m.known) LIMIT 1`,
  );
  expect(rows[0].feature_count).toBe(14592); // SOURCES.md: 14,592 polygons on 2024-10-21
  expect(rows[0].before).toBe(0);
});

test('the later map is a new version whose changes are the districts actually redrawn, not every polygon', async () => {
  const map = second.sources.find((s) => s.source === 'zoning-map')!;
  expect(map).toMatchObject({ state: 'loaded', newVersion: true });
  expect(map.counts.features).toBe(14670); // 14,670 on 2025-04-17
  // most districts had polygons replaced (1,134 of 1,515) ...
  expect(map.counts.districts_changed + map.counts.districts_redrawn).toBeGreaterThan(1000);
  // ... and few changed: measured apart from the loader (ogr2ogr, unions per zone_class in UTM 16N),
  // 59 districts differ by a strip wider than 6 m, 16 classes are new and 10 are gone
  expect(map.newEvents).toBe(events.length);
  expect(events.length).toBeGreaterThan(60);
  expect(events.length).toBeLessThan(100);
  const byCode = new Map(events.map((e) => [compact(e.code), e]));
  // PD 1562 grew from about 6,100 m² to 8,100 m²
  const pd = byCode.get('PD1562')!;
  expect(pd.previous.area_m2).toBeGreaterThan(6000);
  expect(pd.previous.area_m2).toBeLessThan(6250);
  expect(pd.current.area_m2).toBeGreaterThan(7950);
  expect(pd.current.area_m2).toBeLessThan(8250);
  expect(pd.effective_date).toBe(chicagoDate(loadedAt)); // the day of the load, in Chicago
  // PMD 6 differs by 17,000 m² of slivers along 13.6 km² of boundary: redrawn, not rezoned
  expect(byCode.has('PMD6')).toBe(false);
});

test("one district however the map writes its code (Chicago's map has RM-5.5 and RM5.5, PMD 11 and PMD-11)", async () => {
  const { rows } = await h.pool.query(`SELECT DISTINCT code_normalized FROM district WHERE kind = 'base' AND upper(replace(replace(code_normalized, '-', ''), ' ', '')) IN ('RM5.5', 'PMD11')`);
  expect(rows.map((r) => r.code_normalized).sort()).toHaveLength(2);
  const areas = await h.pool.query(`SELECT DISTINCT code_raw FROM district_area WHERE code_raw IN ('RM-5.5', 'RM5.5') AND upper_inf(known)`);
  expect(areas.rows.length).toBe(2); // both spellings were drawn, and both are one district above
});
