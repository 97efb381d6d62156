// Token buckets over real HTTP and PostgreSQL: every answer (2xx and refusals) states its bucket in
// RateLimit-* headers, a 429 carries Retry-After; a burst is answered at once, then the rate;
// tiles and TileJSON take from a bucket of their own; two API processes share one bucket; and
// tokens are claimed from the database in blocks, not a round trip per call.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Route } from '../../api/route.ts';
import { allRoutes } from '../../api/routes/index.ts';
import type { RunningServer } from '../../api/server.ts';
import { createTestOrg, startTestServer } from '../helpers/server.ts';

const probes: Route[] = [
  {
    id: 'probeRate', method: 'GET', path: '/probe/rate', summary: 'probe', tag: 'Probe', credential: 'key', form: 'plain',
    params: [{ name: 'n', in: 'query', type: 'integer' }], price: { credits: 1, per: 'call', note: 'probe' },
    handler: async () => ({ item: { ok: true } }),
  },
  {
    id: 'probeTileBucket', method: 'GET', path: '/probe/tile', summary: 'probe', tag: 'Probe', credential: 'key', form: 'plain',
    bucket: 'tiles', handler: async () => ({ item: { ok: true } }),
  },
];
const routes = [...allRoutes, ...probes];

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One GET over node:http from a loopback address of the test's own (127.0.0.x), so calls
 * without a credential count against an address no other test file calls from.
 */
function get(base: string, path: string, opts: { key?: string; from?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: opts.key ? { 'X-API-Key': opts.key } : {}, localAddress: opts.from ?? '127.0.0.1', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          /* a tile */
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const rate = (a: Answer) => ({
  limit: Number(a.headers['ratelimit-limit']),
  remaining: Number(a.headers['ratelimit-remaining']),
  reset: Number(a.headers['ratelimit-reset']),
  policy: a.headers['ratelimit-policy'] as string,
});
const statuses = (as: Answer[]) => as.map((a) => a.status);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// priced calls: 5 a second, 8 at once; tiles: 20 a second, 40 at once
const LOW = { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '8', TILE_RATE_LIMIT_PER_SECOND: '20', TILE_RATE_LIMIT_BURST: '40' };
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer(LOW, routes);
});
afterAll(async () => {
  await server.close();
});

describe('headers', () => {
  test('a 200 states the bucket: limit, remaining, reset and the policy (draft-ietf-httpapi-ratelimit-headers)', async () => {
    const org = await createTestOrg(server, 100);
    const first = await get(server.url, '/probe/rate', { key: org.apiKey });
    expect(first.status).toBe(200);
    expect(rate(first)).toEqual({ limit: 8, remaining: 7, reset: 1, policy: '8;w=2;comment="priced token bucket: 8 at once, 5 a second after"' });
    const second = await get(server.url, '/probe/rate', { key: org.apiKey });
    expect(rate(second).remaining).toBe(6);
    expect(second.headers['retry-after']).toBeUndefined();
  });

  test('refusals state it too: a bad parameter, no such path, no credential, a wrong key', async () => {
    const org = await createTestOrg(server, 100);
    const refusals = [
      await get(server.url, '/probe/rate?n=abc', { key: org.apiKey }),
      await get(server.url, '/no/such/path', { key: org.apiKey, from: '127.0.0.21' }),
      await get(server.url, '/probe/rate', { from: '127.0.0.21' }),
      await get(server.url, '/probe/rate', { key: 'llk_0000000000000000000000000000000000', from: '127.0.0.21' }),
    ];
    expect(statuses(refusals)).toEqual([422, 404, 401, 401]);
    for (const r of refusals) {
      expect(rate(r).limit, JSON.stringify(r.body)).toBe(8);
      expect(r.headers['ratelimit-policy']).toMatch(/^8;w=2;/);
    }
    // the credential's bucket for the 422; the address's for the rest (three calls from it so far)
    expect(rate(refusals[0]).remaining).toBe(7);
    expect(rate(refusals[3]).remaining).toBe(5);
  });

  test('calls refused before a credential is known are limited by address: past the burst, 429', async () => {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 16 }, () => get(server.url, '/probe/rate', { from: '127.0.0.22' })));
    const seconds = (Date.now() - started) / 1000;
    // the burst of 8 answered (401: no credential), and no more than the rate (5/s) refilled meanwhile
    const answered = statuses(answers).filter((s) => s === 401).length;
    expect(statuses(answers).filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(8);
    expect(answered).toBeLessThanOrEqual(8 + Math.ceil(5 * seconds));
    for (const r of answers.filter((a) => a.status === 429)) expect(r.headers['retry-after']).toBe('1');
  });
});

describe('token bucket', () => {
  test('a burst is answered at once; past it 429 with Retry-After; then the rate refills it', async () => {
    const org = await createTestOrg(server, 100);
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 8 }, () => get(server.url, '/probe/rate', { key: org.apiKey })));
    expect(statuses(burst)).toEqual(Array(8).fill(200));
    const over = await Promise.all(Array.from({ length: 4 }, () => get(server.url, '/probe/rate', { key: org.apiKey })));
    // past the burst only what the rate (5/s) refilled since the burst began is answered
    const refilled = Math.ceil(5 * ((Date.now() - started) / 1000));
    const refused = over.filter((r) => r.status === 429);
    expect(statuses(over).filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(refused.length).toBeGreaterThanOrEqual(4 - refilled);
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1');
      expect(rate(r)).toMatchObject({ limit: 8, remaining: 0, reset: 2 });
      expect(r.body.detail.error.code).toBe('rate_limited');
    }
    // one second refills five tokens (the rate), not the whole burst
    await sleep(1000);
    const drained = Date.now();
    let answered = 0;
    for (let r = await get(server.url, '/probe/rate', { key: org.apiKey }); r.status === 200; r = await get(server.url, '/probe/rate', { key: org.apiKey })) answered += 1;
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(answered).toBeLessThanOrEqual(6 + Math.ceil(5 * ((Date.now() - drained) / 1000)));
  });

  test('tiles and TileJSON take from their own bucket: a viewer never spends the priced budget, nor the reverse', async () => {
    const org = await createTestOrg(server, 100);
    await Promise.all(Array.from({ length: 10 }, () => get(server.url, '/probe/rate', { key: org.apiKey })));
    expect((await get(server.url, '/probe/rate', { key: org.apiKey })).status).toBe(429);
    // the priced bucket is empty; tiles and TileJSON still answer, from a bucket of 40
    const tile = await get(server.url, '/map/parcel/14/4953/6059', { key: org.apiKey });
    expect([200, 204]).toContain(tile.status);
    expect(rate(tile)).toMatchObject({ limit: 40, remaining: 39 });
    expect(tile.headers['ratelimit-policy']).toBe('40;w=2;comment="tiles token bucket: 40 at once, 20 a second after"');
    const tilejson = await get(server.url, '/map/parcel', { key: org.apiKey });
    expect(tilejson.status).toBe(200);
    expect(rate(tilejson).limit).toBe(40);
    expect(rate(tilejson).remaining).toBeGreaterThanOrEqual(38); // and refilled meanwhile (20 a second)

    // a viewer's burst of tiles empties the tile bucket only; a priced call after a refill answers
    const other = await createTestOrg(server, 100);
    const started = Date.now();
    const tiles = await Promise.all(Array.from({ length: 50 }, (_, i) => get(server.url, `/map/parcel/14/${4950 + (i % 10)}/${6055 + Math.floor(i / 10)}`, { key: other.apiKey })));
    const seconds = (Date.now() - started) / 1000;
    // the bucket's 40 at once, and no more than the rate refilled while the burst was answered
    const answered = statuses(tiles).filter((s) => s !== 429).length;
    expect(answered).toBeGreaterThanOrEqual(40);
    expect(answered).toBeLessThanOrEqual(40 + Math.ceil(20 * seconds));
    const priced = await get(server.url, '/probe/rate', { key: other.apiKey });
    expect([priced.status, rate(priced).limit, rate(priced).remaining]).toEqual([200, 8, 7]);
  });

  test('two API processes over one database share one bucket', async () => {
    const shared = { ...LOW, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '10' };
    const a = await startTestServer(shared, routes);
    const b = await startTestServer(shared, routes);
    try {
      const org = await createTestOrg(a, 100);
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 2 ? a.url : b.url, '/probe/rate', { key: org.apiKey })));
      const seconds = (Date.now() - started) / 1000;
      const ok = statuses(answers).filter((s) => s === 200).length;
      expect(ok).toBeGreaterThanOrEqual(10);
      expect(ok).toBeLessThanOrEqual(10 + Math.ceil(seconds));
      expect(statuses(answers).filter((s) => s === 429).length).toBe(30 - ok);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('tokens are claimed in blocks: a viewer-like load of tiles makes one database claim per many calls', async () => {
    // the default tile bucket (200 a second, 400 at once), 24 calls at a time as a map viewer asks
    const viewer = await startTestServer({}, routes);
    try {
      const org = await createTestOrg(viewer, 100);
      const before = viewer.services.meter.rateClaims();
      const answers: Answer[] = [];
      for (let round = 0; round < 15; round++) {
        answers.push(...(await Promise.all(Array.from({ length: 24 }, () => get(viewer.url, '/probe/tile', { key: org.apiKey })))));
      }
      const claims = viewer.services.meter.rateClaims() - before;
      expect(statuses(answers)).toEqual(Array(360).fill(200));
      expect(claims).toBeLessThanOrEqual(360 / 10);
      console.log(`rate claims: ${claims} for ${answers.length} tile-bucket calls (${(answers.length / claims).toFixed(1)} calls a claim)`);
    } finally {
      await viewer.close();
    }
  });
});
