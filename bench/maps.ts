// npm run bench:maps — maps on the real Cambridge data, in one run, on this machine:
//  1. vector tiles: a sweep of z12–z16 district tiles (and z15–z16 parcel tiles) over Cambridge's
//     extent, fetched from GET /map/{layer}/{z}/{x}/{y} by concurrent clients, against the very
//     tile statement of tiles/layers.ts run bare through pgbench by as many clients (a random
//     tile of the same list per transaction, one tile a statement), each side measured after a
//     warm-up of its own sessions; and, as a floor, the same tiles from bench/tile-floor.ts
//     (node:http and pg making the tiles as the API does, the tiles asked meanwhile in one
//     statement: tiles/batch.ts, and nothing else): what any HTTP layer in Node on this machine
//     reaches. The three run in turn, BENCH_ROUNDS times (the machine's speed drifts by ±20% over
//     minutes), at each concurrency of BENCH_CLIENTS (16, 32, 64); each prints tiles/s, p50, p99
//     and the machine's CPU per tile, and each concurrency the median of its rounds' ratios with
//     their range. The goal (≥ 0.85) is on capacity: each side's most tiles/s at any of those
//     concurrencies (docs/decisions.md, Serving fast). Tiles are asked with the Accept-Encoding
//     browsers send (BENCH_ACCEPT_ENCODING, default `gzip, deflate, br`: the API and the floor
//     answer brotli), so the API's tiles/s include coding them; bytes per tile are reported as
//     made, gzip and brotli, over every tile of the sweep;
//  2. OGC API Features: paging through /map/ogc/collections/parcels/items?limit=1000 by its next
//     links (features/s);
//  3. extracts: bench/extract.ts (a 1,000,000-parcel county to Parquet and JSONL), echoed.
//   BENCH_SECONDS (default 12) sets each timed run, BENCH_ROUNDS (default 3) the rounds,
//   BENCH_CLIENTS (default 16,32,64) the concurrencies, BENCH_ACCEPT_ENCODING the coding asked
//   (empty: none);
//   BENCH_SKIP_EXTRACT=1 leaves out step 3.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orgCreate } from '../bin/org.ts';
import { createPool } from '../store/db.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';
import { tileAt } from '../test/helpers/tiles.ts';
import { mapTimes, TILE_LAYERS, type TileLayer, tileSql, tolerance } from '../tiles/layers.ts';
import { machineBusyMs, processMs } from './cpu.ts';
import { type BareResult, pgbench } from './pgbench.ts';
import { httpLoad, type LoadResult, serveApi, serveProcess } from './wrk.ts';

const CLIENTS = (process.env.BENCH_CLIENTS ?? '16,32,64').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WARMUP = Math.min(5, SECONDS);
const ACCEPT = process.env.BENCH_ACCEPT_ENCODING ?? 'gzip, deflate, br';
const PER_ZOOM = 300; // at most this many tiles per zoom (an even sample of the extent's tiles)
const work = mkdtempSync(join(tmpdir(), 'landlex-bench-maps-'));

interface Tile {
  z: number;
  x: number;
  y: number;
}

/** The tiles covering a lon/lat box at zoom z (XYZ scheme), sampled evenly down to `cap`. */
function tilesOf(box: { w: number; s: number; e: number; n: number }, z: number, cap: number): Tile[] {
  const last = 2 ** z - 1;
  const nw = tileAt(box.w, box.n, z);
  const se = tileAt(box.e, box.s, z);
  const all: Tile[] = [];
  for (let x = nw.x; x <= Math.min(last, se.x); x++) for (let y = nw.y; y <= Math.min(last, se.y); y++) all.push({ z, x, y });
  if (all.length <= cap) return all;
  const step = all.length / cap;
  return Array.from({ length: cap }, (_, i) => all[Math.floor(i * step)]);
}

/** `clients` concurrent clients (wrk), each fetching a random path of the list, for SECONDS. */
const load = (port: number, key: string, paths: string[], clients: number, seconds = SECONDS): LoadResult =>
  httpLoad({ port, key, paths, seconds, clients, headers: ACCEPT ? { 'Accept-Encoding': ACCEPT } : {} });

/** The bytes of a GET as sent (node:http leaves a coded body coded), and its status. */
function sent(port: number, key: string, path: string, accept: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers: { 'X-API-Key': key, 'Accept-Encoding': accept } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    }).on('error', reject);
  });
}

/** Bytes per tile (of those with features) as made, in gzip and in brotli, over every path, 8 at a time. */
async function bytesPerTile(port: number, key: string, paths: string[]) {
  const total = { identity: 0, gzip: 0, br: 0 };
  let tiles = 0;
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const plain = await sent(port, key, path, 'identity');
      if (plain.status !== 200) continue;
      tiles++;
      total.identity += plain.bytes;
      for (const coding of ['gzip', 'br'] as const) {
        const coded = await sent(port, key, path, coding);
        if (coded.status !== 200) throw new Error(`${path} answered ${coded.status} to Accept-Encoding: ${coding}`);
        total[coding] += coded.bytes;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const per = (n: number) => Math.round(n / Math.max(1, tiles));
  return { tiles, identity: per(total.identity), gzip: per(total.gzip), br: per(total.br), ratio: { gzip: total.gzip / total.identity, br: total.br / total.identity } };
}

/** A pgbench script run by `clients` clients for SECONDS; tps and the latencies of its log. */
function bareTiles(url: string, name: string, script: string, clients: number): Promise<BareResult> {
  const file = join(work, `${name}.sql`);
  writeFileSync(file, script);
  return pgbench(url, ['-f', file], { clients, seconds: SECONDS, warmupSeconds: WARMUP });
}

interface Side extends LoadResult {
  /** ms of the machine's CPU per tile, and of the serving process's */
  cpuMs: number;
  serverMs: number;
}

/** An HTTP load with the CPU it took: the machine's and the server process's, per tile. */
function measured(port: number, key: string, paths: string[], clients: number, pid: number | undefined): Side {
  const [m0, p0] = [machineBusyMs(), processMs(pid)];
  const r = load(port, key, paths, clients);
  return { ...r, cpuMs: (machineBusyMs() - m0) / r.count, serverMs: (processMs(pid) - p0) / r.count };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms2 = (v: number) => v.toFixed(2);

/**
 * The tile statement of tiles/layers.ts (tileSql) as the API runs it for a tile asked alone as
 * known now (its ETag key worked out in the process), its parameters taken per transaction from
 * the tile list; run prepared (-M prepared), as the API runs it. One tile a statement: the API's
 * batches of tiles asked together (tiles/batch.ts) are its own work, not the baseline's.
 */
function bareTileScript(layer: TileLayer, count: number, asOf: string, knownAsOf: string): string {
  const values: Record<string, string> = { 1: ':z', 2: ':x', 3: ':y', 4: ':asof', 5: ':known', 6: ':tol' };
  const sql = tileSql(layer)
    .replace(/\$(\d)/g, (_m, n: string) => values[n])
    .replace(/\s+/g, ' ')
    .trim();
  return `\\set i random(1, ${count})\nSELECT z, x, y, tol, '${asOf}' AS asof, '${knownAsOf}' AS known FROM bench_tile WHERE layer = '${layer.id}' AND n = :i \\gset\n${sql};\n`;
}

/** Pages through an OGC items URL by its next links: features, pages, seconds; or the status it answered. */
async function ogcItems(port: number, key: string, first: string) {
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'X-API-Key': key, Accept: 'application/geo+json' };
  const probe = await fetch(`${base}${first}`, { headers }).catch((e: Error) => e);
  if (probe instanceof Error) return { measured: false as const, why: `${probe.message}${probe.cause ? ` (${String(probe.cause)})` : ''}` };
  const answer = await probe.text();
  if (probe.status !== 200) return { measured: false as const, why: `${probe.status} (${answer.replace(/\s+/g, ' ').slice(0, 160)})` };
  let features = 0;
  let pages = 0;
  let bytes = 0;
  let next: string | null = `${base}${first}`;
  const started = performance.now();
  while (next) {
    const res: Response = await fetch(next, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`OGC items page ${pages + 1} answered ${res.status}: ${text.slice(0, 300)}`);
    bytes += Buffer.byteLength(text);
    const body = JSON.parse(text) as { features: unknown[]; links?: Array<{ rel: string; href: string }> };
    features += body.features.length;
    pages++;
    const href = body.links?.find((l) => l.rel === 'next')?.href;
    // follow next on our own server, whatever origin the link was written with
    next = href ? (/^https?:/.test(href) ? `${base}${new URL(href).pathname}${new URL(href).search}` : new URL(href, next).toString()) : null;
  }
  const seconds = (performance.now() - started) / 1000;
  return { measured: true as const, features, pages, seconds, mb: bytes / 1e6 };
}

async function maps(summary: string[]) {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  const pool = createPool(db.url, { max: 2 });
  let server: Awaited<ReturnType<typeof serveProcess>> | null = null;
  let floor: Awaited<ReturnType<typeof serveProcess>> | null = null;
  try {
    const { rows: ext } = await pool.query(
      `SELECT ST_XMin(e) AS w, ST_YMin(e) AS s, ST_XMax(e) AS e, ST_YMax(e) AS n FROM (SELECT ST_Extent(geom)::geometry AS e FROM district_area WHERE kind = 'base') x`,
    );
    const box = ext[0];
    if (box.w === null) throw new Error('no district areas were loaded for Cambridge');
    const sweeps: Array<{ layer: TileLayer; zooms: number[]; tiles: Tile[] }> = [
      { layer: TILE_LAYERS.district, zooms: [12, 13, 14, 15, 16], tiles: [] },
      { layer: TILE_LAYERS.parcel, zooms: [15, 16], tiles: [] },
    ];
    for (const s of sweeps) s.tiles = s.zooms.flatMap((z) => tilesOf(box, z, PER_ZOOM));
    await pool.query('CREATE TABLE bench_tile (layer text, n int, z int, x int, y int, tol float8, PRIMARY KEY (layer, n))');
    for (const s of sweeps) {
      await pool.query(
        `INSERT INTO bench_tile SELECT $1, n, z, x, y, tol FROM unnest($2::int[], $3::int[], $4::int[], $5::float8[]) WITH ORDINALITY AS t(z, x, y, tol, n)`,
        [s.layer.id, s.tiles.map((t) => t.z), s.tiles.map((t) => t.x), s.tiles.map((t) => t.y), s.tiles.map((t) => tolerance(t.z))],
      );
    }
    await pool.query('ANALYZE bench_tile');

    const { api_key: key } = await orgCreate(pool, { name: 'bench', credits: 10_000_000 });
    const port = 19_000 + (process.pid % 1000);
    server = await serveApi(db.url, port);
    const floorPort = port + 1;
    floor = await serveProcess(['bench/tile-floor.ts', db.url, String(floorPort)], floorPort);

    // the times the route uses when none are given: today in Cambridge, known as of now
    const { asOf, knownAsOf } = mapTimes({}, ['America/New_York']);

    console.log(
      `bench:maps  ${CLIENTS.join(', ')} clients, ${SECONDS} s each run, ${ROUNDS} rounds of bare SQL, ours, floor in turn, real Cambridge data (2 cores; each figure measured in this run); Accept-Encoding: ${ACCEPT || '(none)'}`,
    );
    console.log(`district extent ${[box.w, box.s, box.e, box.n].map((v: number) => v.toFixed(4)).join(',')}`);
    for (const s of sweeps) {
      const paths = s.tiles.map((tile) => `/map/${s.layer.id}/${tile.z}/${tile.x}/${tile.y}`);
      const perZoom = s.zooms.map((z) => `z${z}:${s.tiles.filter((tile) => tile.z === z).length}`).join(' ');
      console.log(`${s.layer.id} tiles z${s.zooms[0]}-z${s.zooms.at(-1)}  ${s.tiles.length} tiles (${perZoom})`);
      const size = await bytesPerTile(port, key, paths);
      const sizeLine =
        `${s.layer.id} tiles: bytes per tile (${size.tiles} with features) as made ${size.identity}, gzip ${size.gzip} (${size.ratio.gzip.toFixed(2)}),` +
        ` brotli ${size.br} (${size.ratio.br.toFixed(2)})`;
      console.log(`  ${sizeLine}`);
      summary.push(sizeLine);
      // warm up both servers: every tile, and their pools' plans (pgbench warms its own sessions each run)
      load(port, key, paths, CLIENTS[0], WARMUP);
      load(floorPort, key, paths, CLIENTS[0], WARMUP);
      const at: Array<{ clients: number; ratio: number; rate: { ours: number; bare: number; floor: number } }> = [];
      for (const clients of CLIENTS) {
        const rounds: Array<{ bare: BareResult; ours: Side; least: Side }> = [];
        for (let i = 0; i < ROUNDS; i++) {
          const bare = await bareTiles(db.url, `tile-${s.layer.id}`, bareTileScript(s.layer, s.tiles.length, asOf, knownAsOf), clients);
          const ours = measured(port, key, paths, clients, server.pid);
          const least = measured(floorPort, key, paths, clients, floor.pid);
          rounds.push({ bare, ours, least });
          console.log(
            `  ${clients} clients, round ${i + 1}  bare ${String(bare.rate).padStart(5)} tiles/s (p50 ${bare.p50} p99 ${bare.p99} ms, ${ms2(bare.cpuMs)} ms CPU/tile, failed ${bare.errors})` +
              `  ours ${String(ours.rate).padStart(5)} (p50 ${ours.p50} p99 ${ours.p99} ms, ${ms2(ours.cpuMs)} ms CPU/tile, Node ${ms2(ours.serverMs)}, errors ${ours.errors})` +
              `  floor ${String(least.rate).padStart(5)} (p50 ${least.p50} p99 ${least.p99} ms, ${ms2(least.cpuMs)} ms CPU/tile, Node ${ms2(least.serverMs)}, errors ${least.errors})` +
              `  ours/bare ${(ours.rate / bare.rate).toFixed(2)}`,
          );
        }
        const ratios = rounds.map((r) => r.ours.rate / r.bare.rate);
        const ratio = median(ratios);
        const range = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
        const rate = { ours: median(rounds.map((r) => r.ours.rate)), bare: median(rounds.map((r) => r.bare.rate)), floor: median(rounds.map((r) => r.least.rate)) };
        const cpu = (f: (r: (typeof rounds)[number]) => number) => ms2(median(rounds.map(f)));
        console.log(
          `  ${clients} clients, median: ours ${rate.ours} tiles/s, bare SQL ${rate.bare}, floor ${rate.floor}` +
            ` | CPU per tile (ms, whole machine): bare ${cpu((r) => r.bare.cpuMs)}, ours ${cpu((r) => r.ours.cpuMs)} (Node ${cpu((r) => r.ours.serverMs)}), floor ${cpu((r) => r.least.cpuMs)} (Node ${cpu((r) => r.least.serverMs)})` +
            ` | ours/bare ${ratio.toFixed(2)} (rounds ${range}), floor/bare ${median(rounds.map((r) => r.least.rate / r.bare.rate)).toFixed(2)}, ours/floor ${median(rounds.map((r) => r.ours.rate / r.least.rate)).toFixed(2)}`,
        );
        at.push({ clients, ratio, rate });
      }
      // capacity: each side's most tiles/s at any of the concurrencies measured
      const best = (side: 'ours' | 'bare') => at.reduce((b, a) => (a.rate[side] > b.rate[side] ? a : b));
      const [ours, bare] = [best('ours'), best('bare')];
      const capacity = ours.rate.ours / bare.rate.bare;
      // and coded as asked, at least bare SQL's tiles/s at 64 clients (issue 15), when 64 was measured
      const at64 = at.find((a) => a.clients === 64);
      const line =
        `${s.layer.id} tiles: capacity ours/bare ${capacity.toFixed(2)} (goal >= 0.85) ${capacity >= 0.85 ? 'met' : 'NOT met'}: ours ${ours.rate.ours} tiles/s at ${ours.clients} clients, bare ${bare.rate.bare} at ${bare.clients}` +
        ` | at equal clients: ${at.map((a) => `${a.clients}: ${a.ratio.toFixed(2)}`).join(', ')}` +
        (at64 ? ` | at 64 clients ours ${at64.rate.ours} tiles/s, bare ${at64.rate.bare} (goal ours >= bare) ${at64.rate.ours >= at64.rate.bare ? 'met' : 'NOT met'}` : '');
      console.log(`  ${line}`);
      summary.push(line);
    }

    const items = await ogcItems(port, key, '/map/ogc/collections/parcels/items?limit=1000');
    if (items.measured) {
      const rate = Math.round(items.features / items.seconds);
      console.log(`OGC parcels items limit=1000  ${items.features} features in ${items.pages} pages, ${items.seconds.toFixed(2)} s, ${rate} features/s (${items.mb.toFixed(1)} MB GeoJSON)`);
      summary.push(`OGC items: ${items.features} features, ${items.seconds.toFixed(2)} s, ${rate} features/s`);
    } else {
      const line = `OGC items were not measured: /map/ogc/collections/parcels/items answered ${items.why}`;
      console.log(line);
      summary.push(line);
    }
  } finally {
    await floor?.stop();
    await server?.stop();
    await pool.end();
    await db.drop();
  }
}

/** bench/extract.ts in a process of its own (after the API is down), its output echoed. */
function extract(summary: string[]) {
  console.log('extract (bench/extract.ts):');
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/extract.ts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  const out = r.stdout.trim().split('\n');
  for (const l of out) console.log(`  ${l}`);
  if (r.status !== 0) {
    summary.push(`extract: bench/extract.ts exited with ${r.status}`);
    return;
  }
  for (const l of out) {
    // phase rows seconds rows/s "MB out" "peak RSS MB" "vs baseline"
    const m = /^(extract \w+|baseline COPY)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+x)$/.exec(l.trim());
    if (m) summary.push(`${m[1]}: ${m[2]} rows in ${m[3]} s, ${m[4]} rows/s, ${m[5]} MB, peak RSS ${m[6]} MB, ${m[7]} of COPY`);
    else if (l.startsWith('peak RSS')) summary.push(l);
  }
  summary.push(`extract: whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function main() {
  const summary: string[] = [];
  try {
    await maps(summary);
    if (process.env.BENCH_SKIP_EXTRACT !== '1') extract(summary);
    console.log('\nsummary');
    for (const l of summary) console.log(`  ${l}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
