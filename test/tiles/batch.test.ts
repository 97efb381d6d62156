// Tiles made together (tiles/batch.ts) on real Cambridge data: the same bytes as the tile
// statement run alone, for every tile of a sweep asked at once over several layers, dates and
// instants; the tiles asked meanwhile share statements, never more than the slots at once; a
// tile the database refuses fails alone; and the API's tiles as known now come from batches.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import type { Queryable } from '../../store/db.ts';
import { TileBatcher } from '../../tiles/batch.ts';
import { mapTimes, TILE_LAYERS, tileSql, tolerance } from '../../tiles/layers.ts';
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

/** The pool, counting the batch statements it runs and the most running at once. */
function counting(pool: Queryable) {
  const seen = { batches: 0, alone: 0, tilesInBatches: 0, running: 0, most: 0 };
  const db = {
    async query(q: { name?: string; values?: unknown[] }) {
      const batch = q.name?.startsWith('tile-batch-');
      if (batch) {
        seen.batches++;
        seen.tilesInBatches += String(q.values?.[0]).split(',').length;
      } else if (q.name?.startsWith('tile-bare-')) seen.alone++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      try {
        return await pool.query(q as never);
      } finally {
        seen.running--;
      }
    },
  } as unknown as Queryable;
  return { db, seen };
}

const CAMBRIDGE = { z: 14, x: [4951, 4957], y: [6055, 6061] };

function sweep() {
  const tiles: Array<{ z: number; x: number; y: number }> = [];
  for (const dz of [0, 1, 2]) {
    const f = 2 ** dz;
    for (let x = CAMBRIDGE.x[0] * f; x <= CAMBRIDGE.x[1] * f; x += dz === 2 ? 3 : 1)
      for (let y = CAMBRIDGE.y[0] * f; y <= CAMBRIDGE.y[1] * f; y += dz === 2 ? 3 : 1) tiles.push({ z: CAMBRIDGE.z + dz, x, y });
  }
  return tiles;
}

describe('tiles made together', () => {
  test('are byte for byte the tiles made alone, over layers, dates and instants asked at once', async () => {
    const pool = server.services.pool;
    const { db, seen } = counting(pool);
    const batcher = new TileBatcher(db, 2, 16);
    const now = mapTimes({}, []);
    const times = [
      { asOf: now.asOf, knownAsOf: now.knownAsOf },
      { asOf: '2015-06-01', knownAsOf: now.knownAsOf },
      { asOf: now.asOf, knownAsOf: '2001-01-01T00:00:00Z' },
    ];
    const asks = sweep().flatMap((t) => times.flatMap((time) => [TILE_LAYERS.district, TILE_LAYERS.overlay, TILE_LAYERS.parcel].map((layer) => ({ layer, ask: { ...t, ...time } }))));
    expect(asks.length).toBeGreaterThan(500);
    const made = await Promise.all(asks.map(({ layer, ask }) => batcher.make(layer, ask)));
    let drawn = 0;
    for (const [i, { layer, ask }] of asks.entries()) {
      const { rows } = await pool.query(tileSql(layer), [ask.z, ask.x, ask.y, ask.asOf, ask.knownAsOf, tolerance(ask.z)]);
      expect(made[i].features).toBe(rows[0].features);
      expect(Buffer.compare(made[i].tile, rows[0].tile)).toBe(0);
      if (rows[0].features > 0) drawn++;
    }
    // the sweep draws something and leaves something empty (before 2001 nothing was known)
    expect(drawn).toBeGreaterThan(100);
    expect(drawn).toBeLessThan(asks.length);
    // all were asked in one turn: they went in statements of up to 16, two at a time
    expect(seen.tilesInBatches + seen.alone).toBe(asks.length);
    const statements = seen.batches + seen.alone; // a tile left over alone runs as the single statement
    expect(statements).toBeGreaterThanOrEqual(Math.ceil(asks.length / 16));
    expect(statements).toBeLessThan(asks.length / 8);
    expect(seen.most).toBe(2);
  });

  test('a tile the database refuses fails alone; the others of its batch are made', async () => {
    const pool = server.services.pool;
    const { db, seen } = counting(pool);
    const batcher = new TileBatcher(db, 1, 16);
    const { asOf, knownAsOf } = mapTimes({}, []);
    const good = [
      { z: 14, x: 4954, y: 6057 },
      { z: 15, x: 9908, y: 12115 },
    ];
    // x beyond the zoom's 2^z columns: ST_TileEnvelope raises
    const asks = [good[0], { z: 2, x: 9, y: 0 }, good[1]].map((t) => batcher.make(TILE_LAYERS.district, { ...t, asOf, knownAsOf }));
    const [a, bad, b] = await Promise.allSettled(asks);
    expect(bad.status).toBe('rejected');
    expect(String((bad as PromiseRejectedResult).reason)).toMatch(/tile|bounds|range/i);
    for (const [i, r] of [a, b].entries()) {
      expect(r.status).toBe('fulfilled');
      const { rows } = await pool.query(tileSql(TILE_LAYERS.district), [good[i].z, good[i].x, good[i].y, asOf, knownAsOf, tolerance(good[i].z)]);
      expect(Buffer.compare((r as PromiseFulfilledResult<{ tile: Buffer }>).value.tile, rows[0].tile)).toBe(0);
    }
    expect(seen.batches).toBe(1);
    expect(seen.alone).toBe(3);
  });

  test("the API's tiles as known now are made in batches, and answer as those asked with known_as_of", async () => {
    const batcher = server.services.tiles;
    const make = batcher.make.bind(batcher);
    let viaBatcher = 0;
    batcher.make = (layer, ask) => {
      viaBatcher++;
      return make(layer, ask);
    };
    try {
      const paths = sweep()
        .filter((t) => t.z === 15)
        .map((t) => `/map/district/${t.z}/${t.x}/${t.y}`);
      const now = await Promise.all(paths.map((p) => fetch(`${server.url}${p}`, { headers: { 'X-API-Key': key } })));
      expect(viaBatcher).toBe(paths.length);
      for (const [i, res] of now.entries()) {
        const known = res.headers.get('x-known-as-of')!;
        const asked = await fetch(`${server.url}${paths[i]}?known_as_of=${encodeURIComponent(known)}`, { headers: { 'X-API-Key': key } });
        expect(res.status).toBe(asked.status);
        expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), Buffer.from(await asked.arrayBuffer()))).toBe(0);
        expect(res.headers.get('etag')).toBe(asked.headers.get('etag'));
      }
      expect(now.some((r) => r.status === 200)).toBe(true);
      expect(viaBatcher).toBe(paths.length); // asked with known_as_of: not through the batcher
    } finally {
      batcher.make = make;
    }
  });
});
