// A tile's ETag key worked out in the process (tiles/keys.ts) against the database's own
// (tileKeySql) on real Cambridge data: the same text for every tile of a sweep and every tile
// at the edges of each map version's extent, at several knowledge instants (the process's tile
// box is a float4 step wider, so a version within that step of a tile's edge would make the two
// differ, harmlessly; none is on this data); the API's ETags as
// known now equal those asked with known_as_of; and a change of knowledge reaches the process.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { KNOWLEDGE_CHANNEL } from '../../store/place/frame.ts';
import { instantMicros, keyOf, readKeySnapshot, tileBox } from '../../tiles/keys.ts';
import { TILE_LAYERS, tileKeyOnlySql } from '../../tiles/layers.ts';
import { cambridgeApi } from '../helpers/server.ts';
import { tileAt } from '../helpers/tiles.ts';

let close = async () => {};
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(1000));
}, 120_000);
afterAll(async () => {
  await close();
});

test('instants parse to microseconds whatever their form', () => {
  expect(instantMicros('2026-11-25T06:59:01Z')).toBe(Date.parse('2026-11-25T06:59:01Z') * 1000);
  expect(instantMicros('2026-11-25T06:59:01.123Z')).toBe(Date.parse('2026-11-25T06:59:01Z') * 1000 + 123_000);
  expect(instantMicros('2026-11-25T06:59:01.123456Z')).toBe(Date.parse('2026-11-25T06:59:01Z') * 1000 + 123_456);
  expect(instantMicros('2026-11-25T01:59:01.5-05:00')).toBe(Date.parse('2026-11-25T06:59:01Z') * 1000 + 500_000);
  expect(() => instantMicros('2026-11-25')).toThrow(/not an instant/);
});

test("a tile's box holds PostGIS's, within two float4 steps", async () => {
  for (const [z, x, y] of [[12, 1238, 1515], [16, 19822, 24241], [3, 2, 2], [0, 0, 0]]) {
    const { rows } = await server.services.pool.query(
      `SELECT ST_XMin(b)::float8 AS w, ST_YMin(b)::float8 AS s, ST_XMax(b)::float8 AS e, ST_YMax(b)::float8 AS n
         FROM (SELECT ST_Transform(ST_TileEnvelope($1, $2, $3), 4326)::box2d AS b) t`,
      [z, x, y],
    );
    const pg = rows[0];
    const [w, s, e, n] = tileBox(z, x, y);
    const steps = (v: number) => Math.max(Math.abs(v) * 2 ** -22, 1e-30);
    expect(w).toBeLessThan(pg.w);
    expect(pg.w - w).toBeLessThan(steps(w));
    expect(s).toBeLessThan(pg.s);
    expect(pg.s - s).toBeLessThan(steps(s));
    expect(e).toBeGreaterThan(pg.e);
    expect(e - pg.e).toBeLessThan(steps(e));
    expect(n).toBeGreaterThan(pg.n);
    expect(n - pg.n).toBeLessThan(steps(n));
  }
});

describe('the process and the database give every tile the same key', () => {
  test('over a z12–z16 sweep and at the edges of every extent, for each layer, at several instants', async () => {
    const pool = server.services.pool;
    const { snapshot, inFlight } = await readKeySnapshot(pool);
    expect(inFlight).toBe(false);
    expect(snapshot.versions.length).toBeGreaterThan(0);
    const { rows: ext } = await pool.query(
      `SELECT ST_XMin(extent) AS w, ST_YMin(extent) AS s, ST_XMax(extent) AS e, ST_YMax(extent) AS n FROM map_version WHERE extent IS NOT NULL`,
    );
    const tiles = new Map<string, { z: number; x: number; y: number }>();
    const add = (t: { z: number; x: number; y: number }) => {
      for (const [dx, dy] of [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const u = { z: t.z, x: t.x + dx, y: t.y + dy };
        tiles.set(`${u.z}/${u.x}/${u.y}`, u);
      }
    };
    for (const b of ext) {
      for (const z of [8, 12, 14, 16, 18]) for (const [lon, lat] of [[b.w, b.s], [b.e, b.n], [b.w, b.n], [b.e, b.s]]) add({ z, ...tileAt(lon, lat, z) });
    }
    for (const z of [12, 13, 14, 15, 16]) {
      const a = tileAt(-71.1604, 42.4038, z);
      const c = tileAt(-71.064, 42.3525, z);
      for (let x = a.x; x <= c.x; x += Math.max(1, Math.floor((c.x - a.x) / 12))) for (let y = a.y; y <= c.y; y += Math.max(1, Math.floor((c.y - a.y) / 12))) add({ z, x, y });
    }
    // now, the instant the first load began (it knew only that load's first facts), and before anything
    const { rows: inst } = await pool.query(
      `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now,
              to_char(min(lower(known)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS first,
              to_char((min(lower(known)) - interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS before
         FROM map_version`,
    );
    let compared = 0;
    const differing: string[] = [];
    for (const layer of Object.values(TILE_LAYERS)) {
      for (const known of [inst[0].now, inst[0].first, inst[0].before]) {
        for (const t of tiles.values()) {
          const { rows } = await pool.query(tileKeyOnlySql(layer), [t.z, t.x, t.y, known]);
          const ours = keyOf(snapshot, layer, t.z, t.x, t.y, instantMicros(known));
          if (ours !== rows[0].key) differing.push(`${layer.id} ${t.z}/${t.x}/${t.y} at ${known}: ${ours} vs ${rows[0].key}`);
          compared++;
        }
      }
    }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
    // the keys are not all one: tiles far from Cambridge touch no version
    expect(keyOf(snapshot, TILE_LAYERS.district, 10, 0, 0, instantMicros(inst[0].now))).toBe('epoch|epoch');
    expect(keyOf(snapshot, TILE_LAYERS.district, 14, 4955, 6060, instantMicros(inst[0].now))).toMatch(/^\d+\|\d+$/);
  }, 120_000);
});

describe('the API', () => {
  const etag = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
    await res.arrayBuffer();
    return { status: res.status, etag: res.headers.get('etag'), known: res.headers.get('x-known-as-of')! };
  };
  /** Knowledge notices heard from now on, and a wait until `n` have been (at most 2 s). */
  const notices = async () => {
    let heard = 0;
    const stop = await server.services.listen.on(KNOWLEDGE_CHANNEL, () => heard++);
    const waitHeard = async (n: number) => {
      for (let i = 0; i < 200 && heard < n; i++) await new Promise((r) => setTimeout(r, 10));
      expect(heard).toBeGreaterThanOrEqual(n);
    };
    return { waitHeard, stop };
  };

  test('a tile as known now has the ETag it has when asked with known_as_of', async () => {
    for (const path of ['/map/district/14/4955/6060', '/map/overlay/14/4955/6060', '/map/parcel/16/19822/24241', '/map/coverage/10/309/378', '/map/district/6/19/23', '/map/district/10/0/0']) {
      const now = await etag(path);
      const asked = await etag(`${path}?known_as_of=${now.known}`);
      expect(now.etag, path).toMatch(/^".+"$/);
      expect(asked.etag, path).toBe(now.etag);
    }
  });

  test('while a load is in flight the key comes from the database, and the process does not ask again until it settles', async () => {
    const pool = server.services.pool;
    const cache = server.services.tileKeys;
    const path = '/map/district/14/4955/6060';
    const before = await etag(path);
    const { waitHeard, stop } = await notices();
    try {
      let reads = 0;
      const counted = {
        query: (...args: Parameters<typeof pool.query>) => {
          reads++;
          return pool.query(...args);
        },
      } as unknown as typeof pool;
      const keyNow = () => cache.key(counted, TILE_LAYERS.district, 14, 4955, 6060, new Date().toISOString());
      const { rows } = await pool.query(`INSERT INTO knowledge_load (label, jurisdiction_ids, detected_at) VALUES ('test', '{}', now()) RETURNING id`);
      await waitHeard(1);
      expect(await keyNow()).toBeNull();
      expect(reads).toBe(1);
      // asked again at once, it does not read the snapshot again
      expect(await keyNow()).toBeNull();
      expect(reads).toBe(1);
      // the tile meanwhile carries the database's key, which is the same
      expect((await etag(path)).etag).toBe(before.etag);
      await pool.query(`UPDATE knowledge_load SET settled_at = clock_timestamp(), outcome = 'committed' WHERE id = $1`, [rows[0].id]);
      await waitHeard(2);
      expect(await keyNow()).toMatch(/^\d+\|\d+$/);
      expect(reads).toBe(2);
      expect((await etag(path)).etag).toBe(before.etag);
    } finally {
      stop();
    }
  });

  test('a change of knowledge reaches the process: the tiles it touches change ETag, at once', async () => {
    const pool = server.services.pool;
    const path = '/map/district/14/4955/6060';
    const before = await etag(path);
    const untouched = await etag('/map/district/10/0/0');
    const { waitHeard, stop } = await notices();
    try {
      // a correction learnt now: the district map version is re-stamped as learnt this instant
      await pool.query(`UPDATE map_version SET known = tstzrange(now(), NULL) WHERE layer = 'district' AND upper_inf(known)`);
      await waitHeard(1);
      const after = await etag(path);
      expect(after.etag).not.toBe(before.etag);
      expect((await etag(`${path}?known_as_of=${after.known}`)).etag).toBe(after.etag);
      // a tile no district version touches keeps its ETag
      expect((await etag('/map/district/10/0/0')).etag).toBe(untouched.etag);
    } finally {
      stop();
    }
  });
});
