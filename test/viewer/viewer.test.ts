// The map page in headless Chromium (Debian's, driven by playwright-core): it draws our tiles
// (a non-blank screenshot, kept under test-output/) and a click on a parcel shows a cited answer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { cambridgeApi } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let browser: Browser;
let key: string;

const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(10_000));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await close();
});

test('the map draws our tiles, and a click on a parcel shows the rules with their passages', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript((k) => localStorage.setItem('landlex-key', k), key);
  await page.goto(`${server.url}/viewer`);
  await page.waitForFunction(
    () => {
      const m = (window as unknown as { landlexMap?: { getSource(id: string): unknown; loaded(): boolean; areTilesLoaded(): boolean; getZoom(): number } }).landlexMap;
      return Boolean(m?.getSource('district') && m.loaded() && m.areTilesLoaded());
    },
    undefined,
    { timeout: 60_000 },
  );
  await page.evaluate(() => (window as unknown as { landlexMap: { jumpTo(o: object): void } }).landlexMap.jumpTo({ center: [-71.1113, 42.3629], zoom: 17 }));
  await page.waitForFunction(() => (window as unknown as { landlexMap: { areTilesLoaded(): boolean; loaded(): boolean } }).landlexMap.areTilesLoaded() && (window as unknown as { landlexMap: { loaded(): boolean } }).landlexMap.loaded(), undefined, { timeout: 60_000 });
  const shot = await page.locator('#map').screenshot();
  mkdirSync('test-output', { recursive: true });
  writeFileSync('test-output/viewer.png', shot);
  const png = PNG.sync.read(shot);
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4 * 53) colours.add(png.data.readUInt32BE(i) >>> 8);
  expect(colours.size).toBeGreaterThan(4); // more than a blank background

  const point = await page.evaluate(() => (window as unknown as { landlexMap: { project(l: number[]): { x: number; y: number } } }).landlexMap.project([-71.1113, 42.3629]));
  await page.locator('#map').click({ position: { x: point.x, y: point.y } });
  await page.waitForSelector('#answer-title', { timeout: 30_000 });
  expect(await page.textContent('#answer-title')).toContain('Cambridge');
  const quotes = await page.locator('#answer blockquote').allTextContents();
  expect(quotes.length).toBeGreaterThan(0);
  expect(quotes[0]).toMatch(/District|BA-3/);
  writeFileSync('test-output/viewer-answer.png', await page.screenshot());
  expect(errors).toEqual([]);
  await page.close();
});
