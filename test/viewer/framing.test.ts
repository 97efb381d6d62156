// The map page in headless Chromium (Debian's, driven by playwright-core) over two towns 40 km
// apart (Cambridge and the synthetic Millbrook): it opens framed on the town chosen in the URL
// (or, with none, on the data of both), draws districts or parcels at every zoom from 12 to 16
// (parcels from their TileJSON minzoom on), lists in its legend the district types drawn in the
// view in the colours they are drawn with, and a click still shows the /rule answer. A
// screenshot is kept in a temporary directory (its path is printed).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase, type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let browser: Browser;
let key: string;
const shots = mkdtempSync(join(tmpdir(), 'landlex-viewer-'));

const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  h = await pipelineHarness('viewer-framing', { manifestDir: await syntheticManifests(site.url), database: db });
  await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 10_000)).apiKey;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await h?.close();
  await site?.close();
});

type Box = [number, number, number, number];
interface MapHandle {
  loaded(): boolean;
  areTilesLoaded(): boolean;
  jumpTo(o: object): void;
  getZoom(): number;
  project(l: number[]): { x: number; y: number };
  getBounds(): { getWest(): number; getSouth(): number; getEast(): number; getNorth(): number };
  getPaintProperty(layer: string, name: string): unknown;
  queryRenderedFeatures(o: object): Array<{ properties: Record<string, unknown> }>;
}
type Win = { landlexMap: MapHandle; landlexViewer: { framed: { jurisdiction: string | null } | null } };

/** One box of the rows' boxes (w, s, e, n columns). */
const boxOfRows = (rows: Array<Record<string, number>>): Box => [Math.min(...rows.map((r) => r.w)), Math.min(...rows.map((r) => r.s)), Math.max(...rows.map((r) => r.e)), Math.max(...rows.map((r) => r.n))];

/** A town's boundary box, from the store. */
async function townBox(slug: string): Promise<Box> {
  const { rows } = await server.services.pool.query('SELECT ST_XMin(boundary) w, ST_YMin(boundary) s, ST_XMax(boundary) e, ST_YMax(boundary) n FROM jurisdiction WHERE slug = $1', [slug]);
  expect(rows[0]?.w, `${slug} has a boundary`).toBeTypeOf('number');
  return boxOfRows(rows);
}

/** The box of the district areas and parcels in force now, of every town. */
async function dataBox(): Promise<Box> {
  const { rows } = await server.services.pool.query(
    `SELECT ST_XMin(e) w, ST_YMin(e) s, ST_XMax(e) e, ST_YMax(e) n FROM (
       SELECT ST_Extent(geom)::geometry e FROM district_area WHERE kind = 'base' AND upper_inf(known) AND valid @> current_date
       UNION ALL SELECT ST_Extent(geom)::geometry FROM parcel WHERE upper_inf(known) AND valid @> current_date) x WHERE e IS NOT NULL`,
  );
  return boxOfRows(rows);
}

/** The types of the base districts whose areas in force now touch a box ('' for none), each district's type from its most authoritative source, as /district answers. */
async function typesIn(box: Box): Promise<string[]> {
  const { rows } = await server.services.pool.query(
    `SELECT DISTINCT COALESCE(d.type, '') AS type FROM district_area a
       JOIN LATERAL (SELECT d.type FROM district d JOIN source s ON s.id = d.source_id WHERE d.id = a.district_id AND d.valid @> current_date AND upper_inf(d.known)
                      ORDER BY CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END LIMIT 1) d ON true
      WHERE a.kind = 'base' AND upper_inf(a.known) AND a.valid @> current_date AND a.geom && ST_MakeEnvelope($1, $2, $3, $4, 4326)`,
    box,
  );
  return rows.map((r) => r.type).sort();
}

/** A point on a parcel of the town nearest the middle of its box. */
async function onParcel(slug: string): Promise<[number, number]> {
  const { rows } = await server.services.pool.query(
    `SELECT ST_X(p) x, ST_Y(p) y FROM (SELECT ST_PointOnSurface(p.geom) p FROM parcel p JOIN jurisdiction j ON j.id = p.jurisdiction_id
       WHERE j.slug = $1 AND upper_inf(p.known) AND p.valid @> current_date ORDER BY p.geom <-> ST_Centroid(j.boundary) LIMIT 1) x`,
    [slug],
  );
  return [rows[0].x, rows[0].y];
}

async function settled(page: Page) {
  await page.waitForFunction(() => {
    const w = window as unknown as Partial<Win>;
    const m = w.landlexMap;
    return Boolean(w.landlexViewer?.framed && m?.loaded() && m.areTilesLoaded());
  }, undefined, { timeout: 60_000 });
}

async function open(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // MapLibre reports a bad style or source on the console; a failed call of ours as a response (the browser's own favicon asked aside)
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
  await page.addInitScript((k) => localStorage.setItem('landlex-key', k), key);
  await page.goto(`${server.url}/viewer${query}`);
  await settled(page);
  return { page, errors };
}

const viewOf = async (page: Page): Promise<Box> =>
  page.evaluate(() => {
    const b = (window as unknown as Win).landlexMap.getBounds();
    return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()] as Box;
  });

const contains = (outer: Box, inner: Box) => outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
const overlaps = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
/** How much of the view the box spans, along the dimension it fills most (fitBounds fills one). */
const share = (view: Box, box: Box) => Math.max((box[2] - box[0]) / (view[2] - view[0]), (box[3] - box[1]) / (view[3] - view[1]));

describe('framing', () => {
  test.each([
    ['cambridge-ma', 'millbrook-ma'],
    ['millbrook-ma', 'cambridge-ma'],
  ])('?jurisdiction=%s opens framed on that town, not on %s', async (slug, other) => {
    const { page, errors } = await open(`?jurisdiction=${slug}`);
    const [view, town, away] = [await viewOf(page), await townBox(slug), await townBox(other)];
    expect(contains(view, town), `view ${view} holds ${slug} ${town}`).toBe(true);
    expect(share(view, town), `${slug} spans most of the view`).toBeGreaterThan(0.6);
    expect(overlaps(view, away), `${other} is out of view`).toBe(false);
    expect(await page.inputValue('#jurisdiction')).toMatch(/^jur_/);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('with no town chosen, it opens on the data of every town; choosing one frames it and names it in the URL', async () => {
    const { page, errors } = await open('');
    const [view, data] = [await viewOf(page), await dataBox()];
    expect(contains(view, data), `view ${view} holds the data ${data}`).toBe(true);
    expect(share(view, data)).toBeGreaterThan(0.6);
    const millbrook = await page.locator('#jurisdiction option', { hasText: 'Millbrook' }).getAttribute('value');
    await page.selectOption('#jurisdiction', millbrook as string);
    await page.waitForFunction((id) => (window as unknown as Win).landlexViewer.framed?.jurisdiction === id, millbrook);
    await settled(page);
    const town = await townBox('millbrook-ma');
    expect(contains(await viewOf(page), town)).toBe(true);
    expect(share(await viewOf(page), town)).toBeGreaterThan(0.6);
    expect(new URL(page.url()).searchParams.get('jurisdiction')).toBe('millbrook-ma');
    expect(errors).toEqual([]);
    await page.close();
  });
});

test('Cambridge: districts or parcels drawn at every zoom 12-16, parcels from their minzoom; a legend of the types drawn; a click shows /rule; a non-blank screenshot', async () => {
  const { page, errors } = await open('?jurisdiction=cambridge-ma');

  // The legend: the district types of the areas in view, each in the colour its districts are filled with.
  const view = await viewOf(page);
  const expected = await typesIn(view);
  expect(expected.length).toBeGreaterThan(2);
  const legend = async () => (await page.locator('#legend .entry').evaluateAll((es) => es.map((e) => ({ type: e.getAttribute('data-type') ?? '', colour: e.getAttribute('data-colour') ?? '', text: e.textContent ?? '' })))).sort((a, b) => a.type.localeCompare(b.type));
  await page.waitForFunction((n) => document.querySelectorAll('#legend .entry').length === n, expected.length, { timeout: 30_000 }).catch(() => {});
  const entries = await legend();
  expect(entries.map((e) => e.type)).toEqual(expected);
  expect(await page.isVisible('#legend')).toBe(true);
  const fill = (await page.evaluate(() => (window as unknown as Win).landlexMap.getPaintProperty('district-fill', 'fill-color'))) as unknown[];
  expect(fill[0]).toBe('match');
  const drawn = (type: string) => {
    const i = fill.indexOf(type, 2);
    return type && i > 1 && i % 2 === 0 ? fill[i + 1] : fill[fill.length - 1];
  };
  for (const e of entries) {
    expect(e.colour, e.type).toBe(drawn(e.type));
    expect(e.text).toBe(e.type ? e.type.replace(/_/g, ' ') : 'unclassified');
  }
  // distinct types, distinct colours
  expect(new Set(entries.map((e) => e.colour)).size).toBe(entries.length);

  // The screenshot of the framed town: many colours, not a blank map.
  const shot = await page.locator('main').screenshot();
  const file = join(shots, 'viewer-cambridge.png');
  writeFileSync(file, shot);
  console.log(`viewer screenshot: ${file}`);
  const png = PNG.sync.read(shot);
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4 * 7) colours.add(png.data.readUInt32BE(i) >>> 8);
  expect(colours.size).toBeGreaterThan(50);

  // Every zoom from 12 to 16 draws something of the town; parcels from the zoom their TileJSON starts at.
  const parcelMin = (await call(server, 'GET', '/map/parcel', { key })).body.minzoom as number;
  expect(parcelMin).toBeLessThanOrEqual(15);
  const at = await onParcel('cambridge-ma');
  for (const z of [12, 13, 14, 15, 16]) {
    await page.evaluate(([c, zoom]) => (window as unknown as Win).landlexMap.jumpTo({ center: c, zoom }), [at, z] as const);
    await settled(page);
    const counts = await page.evaluate(() => {
      const m = (window as unknown as Win).landlexMap;
      const n = (layers: string[]) => m.queryRenderedFeatures({ layers }).length;
      return { district: n(['district-fill']), parcel: n(['parcel-line']) };
    });
    expect(counts.district + counts.parcel, `z${z}: something drawn`).toBeGreaterThan(0);
    expect(counts.district, `z${z}: districts drawn`).toBeGreaterThan(0);
    if (z >= parcelMin) expect(counts.parcel, `z${z}: parcels drawn`).toBeGreaterThan(0);
  }

  // A click on a parcel: the /rule answer, each rule with its passage.
  await page.evaluate((c) => (window as unknown as Win).landlexMap.jumpTo({ center: c, zoom: 17 }), at);
  await settled(page);
  const point = await page.evaluate((c) => (window as unknown as Win).landlexMap.project(c), at);
  await page.locator('#map').click({ position: { x: point.x, y: point.y } });
  await page.waitForSelector('#answer-title', { timeout: 30_000 });
  expect(await page.textContent('#answer-title')).toContain('Cambridge');
  expect((await page.locator('#answer blockquote').allTextContents()).length).toBeGreaterThan(0);
  writeFileSync(join(shots, 'viewer-cambridge-answer.png'), await page.screenshot());
  expect(errors).toEqual([]);
  await page.close();
}, 180_000); // five zooms drawn and read back in Chromium: slow when the machine is shared
