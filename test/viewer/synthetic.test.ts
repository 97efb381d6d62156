// The map page over time, on the synthetic town after its v1 and v2 ingests (EXPECTED.md): the
// as_of slider stops on the dates the map or the law changed; moving it across 2026-05-15 redraws
// parcel 4-15 from R-2 to VC (tile requests carry the new as_of, the rendered feature and the
// pixels there change), and a click on the parcel shows a cited /rule answer quoting Table 5.1
// with a link to the citation's source. Screenshots are kept under test-output/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { localDate } from '../../core/time.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let browser: Browser;
let key: string;

const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Parcel 4-15 (221 Main St). */
const P415: [number, number] = [-71.493446, 42.621706];

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('viewer-synthetic', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: new Date('2026-04-21T12:00:00Z') });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 10_000)).apiKey;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await h?.close();
  await site?.close();
});

interface MapHandle {
  getSource(id: string): unknown;
  loaded(): boolean;
  areTilesLoaded(): boolean;
  jumpTo(o: object): void;
  project(l: number[]): { x: number; y: number };
  queryRenderedFeatures(p: [number, number], o: object): Array<{ properties: Record<string, unknown> }>;
}
type Win = { landlexMap: MapHandle; landlexViewer: { dates: string[]; asOf(): string | null } };

/** Wait until the map has drawn every tile, and the district rendered at 4-15 is `code`. */
async function drawnAt(page: Page, code: string) {
  await page.waitForFunction(
    ([lngLat, want]) => {
      const m = (window as unknown as Win).landlexMap;
      if (!m.loaded() || !m.areTilesLoaded()) return false;
      const p = m.project(lngLat as number[]);
      const f = m.queryRenderedFeatures([p.x, p.y], { layers: ['district-fill'] });
      return f.length === 1 && f[0].properties.code === want;
    },
    [P415, code] as const,
    { timeout: 60_000 },
  );
}

/** Move the slider with the keyboard, as a person would: arrow keys from its stop to `day`'s. */
async function slideTo(page: Page, day: string) {
  const dates = await page.evaluate(() => (window as unknown as Win).landlexViewer.dates);
  const i = dates.indexOf(day);
  expect(i, `${day} is a stop of the slider (${dates.join(', ')})`).toBeGreaterThanOrEqual(0);
  const from = dates.indexOf((await page.evaluate(() => (window as unknown as Win).landlexViewer.asOf())) ?? '');
  await page.locator('#asof').focus();
  for (let k = from; k !== i; k += i > from ? 1 : -1) await page.keyboard.press(i > from ? 'ArrowRight' : 'ArrowLeft');
  expect(await page.evaluate(() => (window as unknown as Win).landlexViewer.asOf())).toBe(day);
  expect(await page.textContent('#asof-label')).toContain(day);
}

/** The mean colour of a small square of the map around a point (RGB). */
function around(shot: Buffer, x: number, y: number, r = 6): number[] {
  const png = PNG.sync.read(shot);
  const sum = [0, 0, 0];
  let n = 0;
  for (let dy = -r; dy <= r; dy++)
    for (let dx = -r; dx <= r; dx++) {
      const i = (png.width * Math.round(y + dy) + Math.round(x + dx)) * 4;
      for (let c = 0; c < 3; c++) sum[c] += png.data[i + c];
      n++;
    }
  return sum.map((v) => v / n);
}

test('the as_of slider stops on the dates the law changed; across 2026-05-15 parcel 4-15 turns from R-2 to VC; a click shows a cited answer', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  const tileRequests: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (/\/map\/district\/\d+\/\d+\/\d+/.test(r.url())) tileRequests.push(r.url());
  });
  await page.addInitScript((k) => localStorage.setItem('landlex-key', k), key);
  await page.goto(`${server.url}/viewer?jurisdiction=millbrook-ma`);
  await page.waitForFunction(() => {
    const m = (window as unknown as Partial<Win>).landlexMap;
    return Boolean(m?.getSource('district') && m.loaded() && m.areTilesLoaded());
  }, undefined, { timeout: 60_000 });

  // The stops: the first map (2026-03-05, first observed), the moratorium (04-15), the R-1 setback
  // amendment (05-01), the rezoning (05-15), the repeal (06-01), and today.
  const dates = await page.evaluate(() => (window as unknown as Win).landlexViewer.dates);
  const today = localDate(new Date(), 'America/New_York'); // the town's calendar
  expect(dates).toEqual([...new Set(['2026-03-05', '2026-04-15', '2026-05-01', '2026-05-15', '2026-06-01', today])].sort());
  expect(await page.evaluate(() => (window as unknown as Win).landlexViewer.asOf())).toBe(today);

  await page.evaluate((c) => (window as unknown as Win).landlexMap.jumpTo({ center: c, zoom: 17 }), P415);
  await slideTo(page, '2026-05-01');
  expect(await page.textContent('#asof-label')).toMatch(/amendment/);
  await drawnAt(page, 'R-2');
  const point = await page.evaluate((c) => (window as unknown as Win).landlexMap.project(c), P415);
  expect(tileRequests.some((u) => u.endsWith('?as_of=2026-05-01'))).toBe(true);
  mkdirSync('test-output', { recursive: true });
  const before = await page.locator('#map').screenshot();
  writeFileSync('test-output/viewer-millbrook-2026-05-01.png', before);

  const seen = tileRequests.length;
  await slideTo(page, '2026-05-15'); // the next stop: one step
  expect(await page.textContent('#asof-label')).toMatch(/district map|map change/);
  await drawnAt(page, 'VC');
  expect(tileRequests.slice(seen).length).toBeGreaterThan(0);
  expect(tileRequests.slice(seen).every((u) => u.endsWith('?as_of=2026-05-15'))).toBe(true);
  const after = await page.locator('#map').screenshot();
  writeFileSync('test-output/viewer-millbrook-2026-05-15.png', after);
  // the parcel is painted in another district's colour
  const [a, b] = [around(before, point.x, point.y), around(after, point.x, point.y)];
  expect(Math.max(...a.map((v, i) => Math.abs(v - b[i]))), `${a} vs ${b}`).toBeGreaterThan(5);

  // A click on the parcel: /rule as of the slider's date, each rule with its passage.
  await page.locator('#map').click({ position: { x: point.x, y: point.y } });
  await page.waitForSelector('#answer-title', { timeout: 30_000 });
  expect(await page.textContent('#answer-title')).toMatch(/Millbrook.*4-15/);
  expect(await page.textContent('#answer')).toContain('as of 2026-05-15');
  expect(await page.textContent('#answer')).toContain('District VC');
  const quotes = await page.locator('#answer blockquote').allTextContents();
  expect(quotes.length).toBeGreaterThan(3);
  // Table 5.1's VC row, each value quoted as its cell in the code text
  expect(quotes.some((q) => /VC/.test(q)), quotes.join('\n---\n')).toBe(true);
  expect(quotes.filter((q) => q === '5,000' || q === '70'), quotes.join('\n---\n')).toHaveLength(2);
  const links = await page.locator('#answer a.source').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  expect(links.length).toBe(quotes.length);
  for (const l of links) expect(l).toMatch(/^\/citation\/cit_[0-9a-z]+\/source#passage$/);
  writeFileSync('test-output/viewer-millbrook-answer.png', await page.screenshot());

  // The source link opens the retained code text with the passage marked (fetched with the key).
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#answer a.source').first().click()]);
  await popup.waitForFunction(() => document.querySelector('mark#passage') !== null, undefined, { timeout: 30_000 });
  expect(await popup.textContent('mark#passage')).toBe(quotes[0]);
  await popup.close();

  expect(errors).toEqual([]);
  await page.close();
});
