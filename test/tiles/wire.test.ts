// Tiles on the wire, on real Cambridge data, read with node:http (which, unlike fetch, leaves a
// coded body as sent): gzip and brotli when accepted, decoded back to the very tile sent
// uncoded; the tile as made when no coding is accepted; Vary; an ETag per coding and 304 on
// If-None-Match; every feature with an MVT id, the same on two requests.
import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { CodedTiles, chooseCoding, codedTag, noneMatch } from '../../tiles/encoding.ts';
import { cambridgeApi } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(1000));
}, 120_000);
afterAll(async () => {
  await close();
});

/** A GET with exactly these headers (and the key): status, headers and the body's bytes as sent. */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers: { 'X-API-Key': key, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Each feature of a tile's layer: its MVT id and properties. */
function features(bytes: Buffer, layer: string) {
  const l = new VectorTile(new PbfReader(new Uint8Array(bytes))).layers[layer];
  return Array.from({ length: l.length }, (_, i) => l.feature(i)).map((f) => ({ id: f.id, properties: f.properties }));
}

const PARCELS = '/map/parcel/15/9911/12120';
const DISTRICTS = '/map/district/14/4955/6060';

describe('content codings', () => {
  test('gzip and brotli on the wire decode to the tile sent uncoded; each names its coding and varies on Accept-Encoding', async () => {
    const plain = await raw(PARCELS);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/\bAccept-Encoding\b/);
    expect(features(plain.body, 'parcel').length).toBeGreaterThan(50);

    const gz = await raw(PARCELS, { 'Accept-Encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(gz.headers.vary).toMatch(/\bAccept-Encoding\b/);
    expect(gz.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gz.body.length).toBeLessThan(plain.body.length * 0.8);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    // a browser's header: brotli preferred on a tie
    const br = await raw(PARCELS, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/\bAccept-Encoding\b/);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(features(brotliDecompressSync(br.body), 'parcel')).toEqual(features(plain.body, 'parcel'));
    // a client weighing gzip higher gets gzip
    expect((await raw(PARCELS, { 'Accept-Encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
  });

  test('a client that accepts no coding we offer gets the tile as made', async () => {
    const plain = await raw(DISTRICTS);
    for (const accept of ['identity', 'gzip;q=0', 'deflate', 'compress, zstd', '']) {
      const r = await raw(DISTRICTS, { 'Accept-Encoding': accept });
      expect(r.status, accept).toBe(200);
      expect(r.headers['content-encoding'], accept).toBeUndefined();
      expect(r.body.equals(plain.body), accept).toBe(true);
    }
  });

  test('an ETag per coding; If-None-Match is 304 for the representation the client would get, 200 for another', async () => {
    const plain = await raw(DISTRICTS);
    const gz = await raw(DISTRICTS, { 'Accept-Encoding': 'gzip' });
    const br = await raw(DISTRICTS, { 'Accept-Encoding': 'br' });
    const tags = [plain, gz, br].map((r) => String(r.headers.etag));
    for (const t of tags) expect(t).toMatch(/^"[\w-]+"$/);
    expect(new Set(tags).size).toBe(3);

    const again = await raw(DISTRICTS, { 'Accept-Encoding': 'gzip', 'If-None-Match': tags[1] });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(tags[1]);
    expect(again.headers.vary).toMatch(/\bAccept-Encoding\b/);
    // weak comparison, and a list of tags
    expect((await raw(DISTRICTS, { 'Accept-Encoding': 'gzip', 'If-None-Match': `"other", W/${tags[1]}` })).status).toBe(304);
    expect((await raw(DISTRICTS, { 'If-None-Match': tags[0] })).status).toBe(304);
    // the gzip tag names bytes an identity client would not get
    const other = await raw(DISTRICTS, { 'If-None-Match': tags[1] });
    expect(other.status).toBe(200);
    expect(other.body.equals(plain.body)).toBe(true);
  });

  test('the coding chosen for Accept-Encoding values (RFC 9110 12.5.3)', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'identity'],
      ['', 'identity'],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['GZIP;Q=0.8', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.2, gzip;q=0.9', 'gzip'],
      ['br;q=0, gzip;q=0', 'identity'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['identity;q=0, deflate', 'identity'],
      ['zstd', 'identity'],
    ];
    for (const [header, coding] of cases) expect(chooseCoding(header), String(header)).toBe(coding);
    expect(codedTag('"abc"', 'gzip')).toBe('"abc-gzip"');
    expect(codedTag('"abc"', 'identity')).toBe('"abc"');
    expect(noneMatch('*', '"abc"')).toBe(true);
    expect(noneMatch('"abd", W/"abc"', '"abc"')).toBe(true);
    expect(noneMatch('"abc-gzip"', '"abc"')).toBe(false);
  });
});

test('codings kept by ETag: the same bytes again are not coded again; other bytes under the tag are; the budget holds', async () => {
  const tile = (await raw(PARCELS)).body;
  const other = (await raw(DISTRICTS)).body;
  const kept = new CodedTiles(16 * (tile.length + other.length) * 2);
  const first = await kept.encode('"t-gzip"', tile, 'gzip');
  expect(gunzipSync(first).equals(tile)).toBe(true);
  expect(await kept.encode('"t-gzip"', Buffer.from(tile), 'gzip')).toBe(first); // the very buffer kept
  // the tag now names other bytes (a load's notice not yet heard): coded anew, and kept instead
  const anew = await kept.encode('"t-gzip"', other, 'gzip');
  expect(gunzipSync(anew).equals(other)).toBe(true);
  expect(kept.size.tiles).toBe(1);
  expect(await kept.encode('"t"', tile, 'identity')).toBe(tile);
  // a small budget keeps the most recently used
  const small = new CodedTiles(16 * (other.length * 2 + 200));
  for (const tag of ['"a-br"', '"b-br"', '"c-br"']) await small.encode(tag, other, 'br');
  expect(small.size.bytes).toBeLessThanOrEqual(16 * (other.length * 2 + 200));
  const c = await small.encode('"c-br"', other, 'br');
  expect(await small.encode('"c-br"', other, 'br')).toBe(c);
});

describe('feature ids', () => {
  test('every feature has an MVT id, one per feature in the tile, the same on a second request', async () => {
    for (const [path, layer] of [[PARCELS, 'parcel'], [DISTRICTS, 'district'], ['/map/overlay/14/4955/6060', 'overlay'], ['/map/coverage/10/309/378', 'coverage']]) {
      const first = features((await raw(path)).body, layer);
      expect(first.length, path).toBeGreaterThan(0);
      for (const f of first) {
        expect(Number.isSafeInteger(f.id), `${path} ${f.id}`).toBe(true);
        expect(f.id).toBeGreaterThanOrEqual(0);
      }
      expect(new Set(first.map((f) => f.id)).size, path).toBe(first.length);
      const second = features(gunzipSync((await raw(path, { 'Accept-Encoding': 'gzip' })).body), layer);
      expect(second.map((f) => f.id)).toEqual(first.map((f) => f.id));
    }
  });

  test("a parcel's MVT id is the 53-bit hash of its id and content hash, as documented", async () => {
    const tile = features((await raw(PARCELS)).body, 'parcel');
    const { rows } = await server.services.pool.query(
      `SELECT id, (hashtextextended(id || '|' || content_sha256, 0) & 9007199254740991)::text AS mvt_id
         FROM parcel WHERE id = ANY($1) AND upper_inf(known) AND upper_inf(valid)`,
      [tile.map((f) => f.properties.id)],
    );
    const expected = new Map(rows.map((r) => [r.id, Number(r.mvt_id)]));
    expect(expected.size).toBe(tile.length);
    for (const f of tile) expect(f.id, String(f.properties.id)).toBe(expected.get(String(f.properties.id)));
  });
});
