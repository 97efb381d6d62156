// CORS over real HTTP: preflights from another origin are answered (204, methods, the headers a
// page may send, Max-Age, never credentials) on API, tile, TileJSON, OGC, OAuth and viewer paths;
// answers (2xx and refusals) carry Allow-Origin and the headers a page may read; a list of origins
// echoes the matching one with Vary: Origin. Then Chromium on a second origin calls the API with
// a key in a header, and is refused by an API that does not list its origin.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { createTestOrg, startTestServer } from '../helpers/server.ts';

const PAGE_ORIGIN = 'https://maps.example.test';
const list = (h: string | null) => (h ?? '').split(',').map((s) => s.trim().toLowerCase());

let open: RunningServer;
let listed: RunningServer;
let key: string;

beforeAll(async () => {
  open = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  listed = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000', CORS_ORIGINS: `${PAGE_ORIGIN}, http://localhost:5173` });
  key = (await createTestOrg(open, 100)).apiKey;
});
afterAll(async () => {
  await open?.close();
  await listed?.close();
});

const preflight = (server: RunningServer, path: string, method = 'GET', origin = PAGE_ORIGIN) =>
  fetch(server.url + path, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'x-api-key, authorization' } });

describe('any origin (the default)', () => {
  test('a preflight is answered 204 on every kind of path, allowing the key headers, never credentials', async () => {
    const paths: Array<[string, string]> = [
      ['/v1/zoning', 'GET'], ['/jurisdiction', 'GET'], ['/map/parcel', 'GET'], ['/map/parcel/14/4953/6059', 'GET'],
      ['/map/ogc/collections/parcels/items', 'GET'], ['/oauth/token', 'POST'], ['/viewer', 'GET'], ['/key/key_x', 'DELETE'],
    ];
    for (const [path, method] of paths) {
      const r = await preflight(open, path, method);
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(list(r.headers.get('access-control-allow-methods')), path).toContain(method.toLowerCase());
      expect(list(r.headers.get('access-control-allow-headers')), path).toEqual(expect.arrayContaining(['x-api-key', 'authorization', 'content-type', 'if-match', 'if-none-match', 'idempotency-key']));
      expect(r.headers.get('access-control-max-age'), path).toBe('86400');
      expect(r.headers.get('access-control-allow-credentials'), path).toBeNull();
      expect(await r.text(), path).toBe('');
    }
  });

  test('a keyed GET and a tile carry Allow-Origin and expose ETag, Link, RateLimit-* and Content-Encoding', async () => {
    const got = await fetch(`${open.url}/jurisdiction`, { headers: { Origin: PAGE_ORIGIN, 'X-API-Key': key } });
    expect(got.status).toBe(200);
    expect(got.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = list(got.headers.get('access-control-expose-headers'));
    expect(exposed).toEqual(expect.arrayContaining(['etag', 'link', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'content-encoding', 'x-request-id']));
    expect(got.headers.get('vary') ?? '').not.toMatch(/origin/i); // one answer for every origin

    const tile = await fetch(`${open.url}/map/parcel/14/4953/6059`, { headers: { Origin: PAGE_ORIGIN, 'X-API-Key': key, 'Accept-Encoding': 'gzip' } });
    expect([200, 204]).toContain(tile.status);
    expect(tile.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(tile.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['etag', 'content-encoding', 'ratelimit-remaining']));
  });

  test('refusals carry them too, so a page can read why', async () => {
    for (const [path, status] of [['/jurisdiction', 401], ['/no/such/path', 404]] as const) {
      const r = await fetch(open.url + path, { headers: { Origin: PAGE_ORIGIN } });
      expect(r.status, path).toBe(status);
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  test('OPTIONS without a preflight answers Allow for a path that exists, 404 for one that does not', async () => {
    const r = await fetch(`${open.url}/jurisdiction`, { method: 'OPTIONS' });
    expect(r.status).toBe(204);
    expect(list(r.headers.get('allow'))).toEqual(expect.arrayContaining(['get', 'head', 'options']));
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${open.url}/no/such/path`, { method: 'OPTIONS' })).status).toBe(404);
  });
});

describe('listed origins (CORS_ORIGINS)', () => {
  test('a listed origin is echoed with Vary: Origin; another gets no Allow-Origin', async () => {
    const ok = await fetch(`${listed.url}/map/parcel/14/4953/6059`, { headers: { Origin: PAGE_ORIGIN, 'X-API-Key': key, 'Accept-Encoding': 'gzip' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(list(ok.headers.get('vary'))).toContain('origin');
    const other = await fetch(`${listed.url}/jurisdiction`, { headers: { Origin: 'https://elsewhere.example.test', 'X-API-Key': key } });
    expect(other.status).toBe(200); // CORS is the browser's to enforce; the answer just does not allow it
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(list(other.headers.get('vary'))).toContain('origin');
    const pre = await preflight(listed, '/jurisdiction', 'GET', 'https://elsewhere.example.test');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
    expect((await preflight(listed, '/jurisdiction', 'GET', 'http://localhost:5173')).headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  test('CORS_ORIGINS is validated with the other variables', () => {
    const base = { DATABASE_URL: 'postgres://x@127.0.0.1/y' };
    expect(loadConfig(base).corsOrigins).toBe('*');
    expect(loadConfig({ ...base, CORS_ORIGINS: 'https://a.example.test/, http://127.0.0.1:8080' }).corsOrigins).toEqual(['https://a.example.test', 'http://127.0.0.1:8080']);
    for (const bad of ['maps.example.com', 'https://a.example.test/maps', 'ftp://a.example.test', ',']) {
      let err: unknown;
      try {
        loadConfig({ ...base, CORS_ORIGINS: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.join(), bad).toMatch(/^CORS_ORIGINS/);
    }
  });
});

describe('a browser page on another origin', () => {
  let browser: Browser;
  let page: Server;
  let pageUrl: string;
  let listsPage: RunningServer;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    page = createServer((_req, res) => res.end('<!doctype html><title>another origin</title>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    listsPage = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000', CORS_ORIGINS: `${PAGE_ORIGIN},${new URL(pageUrl).origin}` });
  }, 60_000);
  afterAll(async () => {
    await listsPage?.close();
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  /** fetch from the page: the status and the headers a page can read, or the error CORS gives */
  async function fromPage(url: string, headers: Record<string, string>) {
    const tab = await browser.newPage();
    try {
      await tab.goto(pageUrl);
      return await tab.evaluate(
        async ([u, h]) => {
          try {
            const r = await fetch(u, { headers: h });
            return { status: r.status, remaining: r.headers.get('RateLimit-Remaining'), policy: r.headers.get('RateLimit-Policy'), etag: r.headers.get('ETag'), error: null };
          } catch (e) {
            return { status: 0, remaining: null, policy: null, etag: null, error: String(e) };
          }
        },
        [url, headers] as const,
      );
    } finally {
      await tab.close();
    }
  }

  test('calls the API with the key in X-API-Key or HTTP Basic (a preflight each) and reads the exposed headers', async () => {
    const keyed = await fromPage(`${open.url}/jurisdiction`, { 'X-API-Key': key });
    expect(keyed).toMatchObject({ status: 200, error: null });
    expect(Number(keyed.remaining)).toBeGreaterThan(0);
    expect(keyed.policy).toMatch(/^\d+;w=\d+/);
    const basic = await fromPage(`${open.url}/jurisdiction`, { Authorization: `Basic ${Buffer.from(`viewer:${key}`).toString('base64')}` });
    expect(basic).toMatchObject({ status: 200, error: null });
    const tilejson = await fromPage(`${open.url}/map/parcel`, { 'X-API-Key': key });
    expect(tilejson).toMatchObject({ status: 200, error: null });
  });

  test('an API listing origins answers the page only when its origin is listed', async () => {
    const refused = await fromPage(`${listed.url}/jurisdiction`, { 'X-API-Key': key });
    expect(refused.status).toBe(0);
    expect(refused.error).toMatch(/Failed to fetch/);
    const allowed = await fromPage(`${listsPage.url}/jurisdiction`, { 'X-API-Key': key });
    expect(allowed).toMatchObject({ status: 200, error: null });
  });
});
