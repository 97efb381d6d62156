// Sources that fail in every way a probe tried, served over real HTTP on loopback after a good
// version was loaded: a truncated GeoJSON map and parcel layer, a broken PDF, a 500, a NUL byte
// in the code's HTML, and a roll with bad rows (33 fields, an unclosed quote that swallows the
// next row, a NUL byte). The run completes and the other sources load; each failure is reported
// with its stage and reason; nothing held is lost, in the store and as the API serves it.
// Then rounds of seeded random breakage (where a file is cut, which rows break and how): one in
// the short form, FAULT_ROUNDS of them in the long one (npm run faults:sources; FAULT_SEED).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import type { JurisdictionOutcome, SourceOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, siteFile, startSyntheticSite } from '../helpers/synthetic-site.ts';
import { type Breakage, breakages, FACT_TABLES, heldBySource, RULES_PDF, seeded } from './breakage.ts';

const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');
const T3 = new Date('2026-04-28T12:00:00Z');

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
let good: JurisdictionOutcome;
let broken: JurisdictionOutcome;
const src = (o: JurisdictionOutcome, k: string) => o.sources.find((s) => s.source === k) as SourceOutcome;
const get = async (path: string) => {
  const r = await call(server, 'GET', path, { key });
  expect(r.status, path).toBe(200);
  return r.body;
};

/** What the API serves about the parcels the broken roll names, and a rule there. */
async function served(parcelIds: Record<string, string>) {
  const out: Record<string, unknown> = {};
  for (const [k, id] of Object.entries(parcelIds)) {
    const p = await get(`/parcel/${id}?as_of=2026-04-01`);
    out[`parcel ${k}`] = { key: p.item.parcel_key, area: p.item.area, property: p.item.property };
    const r = await get(`/rule?parcel=${id}&as_of=2026-04-01&use=residential.dwelling.single_family`);
    out[`rule ${k}`] = r.item;
  }
  const place = await get(`/place?address=${encodeURIComponent('105 Main St, Millbrook, MA')}&include=parcel`);
  out.place = place.item.parcel;
  return out;
}

let before: { held: Awaited<ReturnType<typeof heldBySource>>; served: Record<string, unknown>; parcels: Record<string, string> };

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  const dir = await syntheticManifests(site.url);
  const manifest = JSON.parse(await readFile(join(dir, 'millbrook-ma.json'), 'utf8'));
  manifest.sources.push({ key: 'planning-rules', kind: 'code_text', title: 'Planning Board Rules and Regulations', url: `${site.url}/planning/rules.pdf`, format: 'pdf', cadence: 'monthly' });
  await writeFile(join(dir, 'millbrook-ma.json'), JSON.stringify(manifest, null, 2));
  site.serve('/planning/rules.pdf', RULES_PDF);
  h = await pipelineHarness('faults', { manifestDir: dir });
  [good] = await h.ingest(['millbrook-ma'], { now: T1 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  const { rows } = await h.pool.query(`SELECT parcel_key, id FROM parcel WHERE parcel_key IN ('2-2', '2-4', '2-5', '4-12') AND upper_inf(known)`);
  const parcels = Object.fromEntries(rows.map((r) => [r.parcel_key, r.id]));
  before = { held: await heldBySource(h.pool), served: await served(parcels), parcels };
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

describe('a good version first', () => {
  test('every source loads, the PDF too', () => {
    expect(good.sources.map((s) => [s.source, s.state])).toEqual(good.sources.map((s) => [s.source, 'loaded']));
    expect(src(good, 'planning-rules').counts).toMatchObject({ sections: 8 });
    expect(Object.keys(before.parcels)).toHaveLength(4);
  });
});

describe('then every source broken at once, while the site moves on to version 2', () => {
  const breaks: Breakage[] = breakages(siteFile);
  beforeAll(async () => {
    site.setVersion(2);
    for (const b of breaks) b.apply(site);
    [broken] = await h.ingest(['millbrook-ma'], { now: T2 });
  }, 180_000);

  test('the run completes: each broken source reports its stage and reason, the others load', () => {
    const report = Object.fromEntries(broken.sources.map((s) => [s.source, { state: s.state, stage: s.stage ?? null }]));
    expect(report).toEqual({
      ordinances: { state: 'loaded', stage: null },
      'zoning-code': { state: 'failed', stage: 'load' },
      'planning-rules': { state: 'failed', stage: 'load' },
      'zoning-map': { state: 'failed', stage: 'load' },
      parcels: { state: 'failed', stage: 'load' },
      'assessor-roll': { state: 'loaded', stage: null },
      'registry-index': { state: 'loaded', stage: null },
      permits: { state: 'failed', stage: 'fetch' },
      cases: { state: 'loaded', stage: null },
      meetings: { state: 'unchanged', stage: null },
      // the amendments' own texts the ordinance list links to: those of v1 unchanged, v2's new
      'ordinance-2022-04': { state: 'unchanged', stage: null },
      'ordinance-2023-02': { state: 'unchanged', stage: null },
      'ordinance-2026-03': { state: 'unchanged', stage: null },
      'ordinance-2026-07': { state: 'loaded', stage: null },
      'ordinance-2026-08': { state: 'loaded', stage: null },
      'ordinance-2026-09': { state: 'loaded', stage: null },
    });
    for (const b of breaks) if (b.error) expect(src(broken, b.source).error, b.source).toMatch(b.error);
    expect(src(broken, 'registry-index').newVersion).toBe(true);
  });

  test('the roll: the three bad lines rejected with their lines, what was held for their four accounts kept', () => {
    const roll = src(broken, 'assessor-roll');
    expect(roll.counts).toMatchObject({ rejected: 4, property_kept: 4, property_removed: 0, property_changed: 0 });
    expect(roll.issues.filter((i) => i.code === 'row_rejected').map((i) => i.detail)).toEqual([
      'line 5: has 33 fields, the header has 30; what was held for account 1004 is kept',
      'line 7: a quote opened on this line is not closed on its line; it swallows line 8; what was held for account 1006 is kept',
      'line 8: swallowed by the quote opened on line 7; what was held for account 1007 is kept',
      'line 11: a NUL byte in column LOCATION; what was held for account 1010 is kept',
    ]);
  });

  test('the cases feed: the record with a NUL is rejected, the others load', () => {
    const cases = src(broken, 'cases');
    expect(cases.counts).toMatchObject({ cases: 2, rejected: 1 });
    expect(cases.issues.filter((i) => i.code === 'row_rejected').map((i) => i.detail)).toEqual(['line 1: a NUL character in the record (no database text holds one)']);
  });

  test('nothing held is lost: every fact of the failed sources and of the roll is the row it was', async () => {
    const now = await heldBySource(h.pool);
    for (const key of ['zoning-code', 'planning-rules', 'zoning-map', 'parcels', 'assessor-roll', 'permits', 'cases']) {
      for (const table of FACT_TABLES) expect(now[key]?.[table], `${key} ${table}`).toEqual(before.held[key]?.[table]);
    }
    // and the sources that loaded did change what they hold
    expect(now['registry-index']).not.toEqual(before.held['registry-index']);
  });

  test('the API serves the same parcels, properties, rules and addresses', async () => {
    expect(await served(before.parcels)).toEqual(before.served);
  });

  test('coverage still holds every layer and names each problem', async () => {
    const { rows } = await h.pool.query(`SELECT layer, held, tier, detail FROM coverage WHERE jurisdiction_id = $1 ORDER BY layer`, [broken.jurisdictionId]);
    for (const r of rows) expect([r.layer, r.held, r.tier]).toEqual([r.layer, true, expect.not.stringMatching(/^none$/)]);
    const problem = (layer: string, source: string) => rows.find((r) => r.layer === layer)?.detail.sources[source].problem;
    expect(problem('district_map', 'zoning-map')).toMatchObject({ stage: 'load', reason: expect.stringMatching(/GeoJSON/) });
    expect(problem('parcel', 'parcels')).toMatchObject({ stage: 'load' });
    expect(problem('zoning_text', 'zoning-code')).toMatchObject({ stage: 'load', reason: expect.stringMatching(/NUL byte/) });
    expect(problem('zoning_text', 'planning-rules')).toMatchObject({ stage: 'load', reason: expect.stringMatching(/pdf_unreadable/) });
    expect(problem('permit', 'permits')).toMatchObject({ stage: 'fetch', reason: expect.stringMatching(/500/) });
  });

  test('healed, every source loads its version 2 again', async () => {
    site.heal();
    site.serve('/planning/rules.pdf', RULES_PDF);
    const [healed] = await h.ingest(['millbrook-ma'], { now: T3 });
    expect(healed.sources.filter((s) => s.state === 'failed').map((s) => [s.source, s.error])).toEqual([]);
    expect(src(healed, 'zoning-map')).toMatchObject({ state: 'loaded' });
    expect(src(healed, 'assessor-roll')).toMatchObject({ state: 'loaded', counts: { rejected: 0, property_removed: 0 } });
  });
});

const rounds = Number(process.env.FAULT_ROUNDS ?? 1);
describe(`${rounds} round(s) of seeded random breakage`, () => {
  test('each round: the run completes, failures carry stage and reason, what each broken source held is kept', async () => {
    const random = seeded(Number(process.env.FAULT_SEED ?? 12));
    for (let round = 0; round < rounds; round++) {
      site.heal();
      site.serve('/planning/rules.pdf', RULES_PDF);
      await h.ingest(['millbrook-ma'], { now: new Date(T3.getTime() + (2 * round + 1) * 86_400_000) });
      const held = await heldBySource(h.pool);
      const breaks = breakages(siteFile, random).filter(() => random() < 0.6);
      for (const b of breaks) b.apply(site);
      const [r] = await h.ingest(['millbrook-ma'], { now: new Date(T3.getTime() + (2 * round + 2) * 86_400_000) });
      const now = await heldBySource(h.pool);
      for (const s of r.sources) if (s.state === 'failed') expect(s.stage && s.error, `round ${round} ${s.source}`).toBeTruthy();
      for (const b of breaks) {
        const s = src(r, b.source);
        const at = `round ${round} ${b.source}`;
        if (b.error) expect([s.state, s.stage, s.error], at).toEqual(['failed', expect.any(String), expect.stringMatching(b.error)]);
        else expect([s.state, s.counts.rejected > 0, s.counts.property_removed ?? 0], at).toEqual(['loaded', true, 0]);
        for (const table of FACT_TABLES) expect(now[b.source]?.[table], `${at} ${table}`).toEqual(held[b.source]?.[table]);
      }
    }
  }, 60_000 + rounds * 30_000);
});
