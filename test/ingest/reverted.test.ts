// A source that returns to earlier bytes (issue 12, defect 2): what a source publishes now is
// current, so A → B → A again makes A current again, as a new version with its change events;
// the same bytes as the current version again make nothing. The real Somerville ordinance (B is
// the fixture test/fixtures/somerville-b), and the synthetic town's map, ordinances and feeds.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import type { JurisdictionOutcome, SourceOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { type PlacedSource, placedSource, SOMERVILLE_A, somervilleB } from '../helpers/placed.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

const src = (o: JurisdictionOutcome, key: string) => o.sources.find((s) => s.source === key) as SourceOutcome;
const at = (d: string) => new Date(`${d}T12:00:00Z`);

/** Every fact held now (open in both times) of the tables a source writes, as (table, id, content). */
async function heldNow(h: PipelineHarness, tables: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of tables) {
    const { rows } = await h.pool.query(`SELECT id, content_sha256 FROM ${t} WHERE upper_inf(known) AND upper_inf(valid) ORDER BY id, content_sha256`);
    out.push(...rows.map((r) => `${t}:${r.id}:${r.content_sha256}`));
  }
  return out;
}

const counts = async (h: PipelineHarness) =>
  (
    await h.pool.query(
      `SELECT (SELECT count(*) FROM document_version)::int AS versions, (SELECT count(*) FROM change_event)::int AS events,
              (SELECT count(*) FROM permission) + (SELECT count(*) FROM control) + (SELECT count(*) FROM section) + (SELECT count(*) FROM district)
            + (SELECT count(*) FROM district_area) + (SELECT count(*) FROM ordinance) + (SELECT count(*) FROM map_version) AS facts`,
    )
  ).rows[0];

describe("Somerville's ordinance A → B → A", () => {
  const CODE = ['section', 'district', 'permission', 'control', 'unlisted_use_rule'];
  let placed: PlacedSource;
  let h: PipelineHarness;
  let server: RunningServer;
  let key: string;
  let heldA: string[];
  let runB: JurisdictionOutcome;
  let runA2: JurisdictionOutcome;
  type Event = { kind: string; field_path: string; previous: unknown; current: unknown; effective_date: string };
  let eventsOfB: Event[];
  let eventsOfA2: Event[];

  const events = async (versionId: string | null): Promise<Event[]> =>
    (await h.pool.query(`SELECT kind, field_path, previous, current, effective_date::text FROM change_event WHERE source_version_id = $1 ORDER BY field_path`, [versionId])).rows;

  beforeAll(async () => {
    placed = await placedSource('somerville-ma', 'zoning-ordinance', readFileSync(SOMERVILLE_A));
    h = await pipelineHarness('reverted_somerville', { manifestDir: placed.manifestDir });
    await h.ingest(['somerville-ma'], { now: at('2026-03-05') });
    heldA = await heldNow(h, CODE);
    await placed.publish(somervilleB());
    [runB] = await h.ingest(['somerville-ma'], { now: at('2026-03-12') });
    eventsOfB = await events(src(runB, 'zoning-ordinance').versionId);
    await placed.publish(readFileSync(SOMERVILLE_A));
    [runA2] = await h.ingest(['somerville-ma'], { now: at('2026-03-19') });
    eventsOfA2 = await events(src(runA2, 'zoning-ordinance').versionId);
    server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
    key = (await createTestOrg(server, 1000)).apiKey;
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await placed?.close();
  });

  test('B is loaded with its events: ten front setbacks 10 → 11 ft, one use P → SP', () => {
    expect(src(runB, 'zoning-ordinance')).toMatchObject({ state: 'loaded', newVersion: true, counts: { fact_changed: 11, fact_added: 0, fact_removed: 0 } });
    expect(eventsOfB.filter((e) => /\.control\.dimensional\.setback_front\..*\.min_value$/.test(e.field_path)).map((e) => [e.previous, e.current])).toEqual(Array(10).fill([10, 11]));
    expect(eventsOfB.filter((e) => e.field_path.includes('.permission.')).map((e) => [e.field_path.split('.')[1], e.previous, e.current])).toEqual([
      ['MR3', 'by_right', 'conditional_use'],
      ['MR3', 'P', 'SP'],
    ]);
  });

  test('A again is a new version, loaded, and its events undo B\'s one for one', () => {
    expect(src(runA2, 'zoning-ordinance')).toMatchObject({ state: 'loaded', newVersion: true, counts: { fact_changed: 11, fact_added: 0, fact_removed: 0 } });
    expect(eventsOfA2.length).toBe(eventsOfB.length);
    expect(eventsOfA2.map((e) => [e.kind, e.field_path, e.previous, e.current])).toEqual(eventsOfB.map((e) => [e.kind, e.field_path, e.current, e.previous]));
    expect(new Set(eventsOfA2.map((e) => e.effective_date))).toEqual(new Set(['2026-03-19']));
  });

  test('what is held now is exactly what A stated; B is kept in knowledge time', async () => {
    expect(await heldNow(h, CODE)).toEqual(heldA);
    const front = async (known: string) =>
      (
        await h.pool.query(
          `SELECT c.min_value::float AS min, q.quote, v.number FROM control c JOIN citation q ON q.id = c.citation_id JOIN document_version v ON v.id = q.version_id
            WHERE c.building_type = 'Cottage' AND c.control_type = 'dimensional.setback_front' AND c.qualifier IS NULL AND c.known @> $1::timestamptz AND c.valid @> '2026-04-01'::date`,
          [known],
        )
      ).rows;
    expect(await front('2026-03-15T00:00:00Z')).toEqual([{ min: 11, quote: 'Primary Front Setback 1 (min/max) | 11 ft | 20 ft', number: 2 }]);
    expect(await front('2026-03-20T00:00:00Z')).toEqual([{ min: 10, quote: 'Primary Front Setback 1 (min/max) | 10 ft | 20 ft', number: 3 }]);
  });

  test('the API serves A again, citing the text published now', async () => {
    const nr = async (known: string) => {
      const r = await call(server, 'GET', `/jurisdiction/somerville-ma/district/NR?include=control&as_of=2026-04-01&known_as_of=${known}`, { key });
      expect(r.status).toBe(200);
      type Control = { building_type: string | null; control_type: string; qualifier: string | null; min: number; citation: { quote: string } };
      const c = (r.body.item.control as Control[]).find((x) => x.building_type === 'Cottage' && x.control_type === 'dimensional.setback_front' && x.qualifier === null);
      return [c?.min, c?.citation.quote];
    };
    expect(await nr('2026-03-15T00:00:00Z')).toEqual([11, 'Primary Front Setback 1 (min/max) | 11 ft | 20 ft']);
    expect(await nr(new Date().toISOString())).toEqual([10, 'Primary Front Setback 1 (min/max) | 10 ft | 20 ft']);
  });

  test('the document keeps three versions: the third is a new observation of the first bytes', async () => {
    const r = await call(server, 'GET', '/document?jurisdiction=somerville-ma&doc_type=code&include=version', { key });
    expect(r.status).toBe(200);
    const [doc] = r.body.item;
    expect(doc.version_count).toBe(3);
    const [v3, v2, v1] = doc.version;
    expect([v3.number, v2.number, v1.number]).toEqual([3, 2, 1]);
    expect(v3.sha256).toBe(v1.sha256);
    expect(v2.sha256).not.toBe(v1.sha256);
    expect(v3.id).not.toBe(v1.id);
    expect([v1.retrieved_at, v2.retrieved_at, v3.retrieved_at]).toEqual(['2026-03-05T12:00:00.000Z', '2026-03-12T12:00:00.000Z', '2026-03-19T12:00:00.000Z']);
    expect(doc.version.every((v: { loaded: boolean }) => v.loaded)).toBe(true);
    // the bytes were read from a local file: no address is shown, never the local path
    expect(doc.url_canonical).toBeNull();
    expect(doc.version.map((v: { url: string | null }) => v.url)).toEqual([null, null, null]);
    expect(JSON.stringify(r.body)).not.toContain('file:');
  });

  test('A once more, the same bytes as the current version: no version, no fact, no event', async () => {
    const before = await counts(h);
    const [again] = await h.ingest(['somerville-ma'], { now: at('2026-03-26') });
    expect(src(again, 'zoning-ordinance')).toMatchObject({ state: 'unchanged', newVersion: false });
    expect(await counts(h)).toEqual(before);
  });
});

describe("the synthetic town's site v1 → v2 → v1: a map, the ordinance list and the feeds", () => {
  const MAP = ['district_area'];
  let site: SyntheticSite;
  let h: PipelineHarness;
  let back: JurisdictionOutcome;
  let heldV1: string[];

  beforeAll(async () => {
    site = await startSyntheticSite({ version: 1 });
    h = await pipelineHarness('reverted_synthetic', { manifestDir: await syntheticManifests(site.url) });
    await h.ingest(['millbrook-ma'], { now: at('2026-03-05') });
    heldV1 = await heldNow(h, MAP);
    site.setVersion(2);
    await h.ingest(['millbrook-ma'], { now: at('2026-04-21') });
    site.setVersion(1);
    [back] = await h.ingest(['millbrook-ma'], { now: at('2026-06-10') });
  }, 300_000);
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  test('every source v2 changed is loaded again from v1\'s bytes, as a new version', () => {
    for (const key of ['zoning-map', 'zoning-code', 'ordinances', 'permits', 'registry-index']) expect(src(back, key), key).toMatchObject({ state: 'loaded', newVersion: true });
    for (const key of ['parcels', 'assessor-roll', 'cases']) expect(src(back, key), key).toMatchObject({ state: 'unchanged', newVersion: false });
  });

  test('the zoning map: v1\'s areas held again, a third map version, the rezoning undone with its events', async () => {
    expect(await heldNow(h, MAP)).toEqual(heldV1);
    const maps = await h.pool.query(
      `SELECT m.effective_from::text AS f, m.effective_through::text AS t, v.number FROM map_version m JOIN document_version v ON v.id = m.version_id WHERE m.layer = 'district' ORDER BY v.number`,
    );
    expect(maps.rows.map((r) => r.number)).toEqual([1, 2, 3]);
    expect(maps.rows[2]).toMatchObject({ f: '2026-06-10', t: null });
    const ev = await h.pool.query(
      `SELECT e.field_path, e.effective_date::text FROM change_event e JOIN document_version v ON v.id = e.source_version_id WHERE e.kind = 'map_change' AND v.number = 3 ORDER BY 1`,
    );
    expect(ev.rows).toEqual([
      { field_path: 'district_map.R-2.area', effective_date: '2026-06-10' },
      { field_path: 'district_map.VC.area', effective_date: '2026-06-10' },
    ]);
    const district = async (asOf: string, known: string) =>
      (
        await h.pool.query(
          `SELECT a.code_raw FROM parcel p JOIN district_area a ON ST_Covers(a.geom, ST_PointOnSurface(p.geom))
            WHERE p.parcel_key = '4-15' AND a.kind = 'base' AND a.valid @> $1::date AND a.known @> $2::timestamptz AND upper_inf(p.known) AND upper_inf(p.valid)`,
          [asOf, known],
        )
      ).rows.map((r) => r.code_raw);
    expect(await district('2026-06-01', '2026-05-01T00:00:00Z')).toEqual(['VC']);
    expect(await district('2026-06-11', '2026-06-11T00:00:00Z')).toEqual(['R-2']);
  });
});
