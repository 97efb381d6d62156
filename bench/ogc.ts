// npm run bench:ogc — GDAL copying Cambridge's parcels to a GeoPackage, in one run, on this machine:
//  - through OGC API Features: `ogr2ogr -f GPKG out.gpkg OAPIF:…/map/ogc parcels` with no open
//    options (only the key, in a header), from `landlex serve` with its default configuration
//    (rate limit included), a new organization each round, so each round pays for its copy;
//  - from the database directly: `ogr2ogr -f GPKG out.gpkg PG:… -sql <the items' own SELECT>`,
//    the same rows and properties (the collection's definition in ogc/collections.ts), no HTTP.
// The two run in turn BENCH_ROUNDS times (default 3); each prints seconds, features/s, requests
// and credits, and how long the server takes to serve the same pages to a client that does not
// parse them; then the medians and their ratio. Not a test: figures, and the requests GDAL made.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orgCreate } from '../bin/org.ts';
import { creditsFor } from '../activities/extract/plan.ts';
import { collectionById, type SqlTimes } from '../ogc/collections.ts';
import { createPool } from '../store/db.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';
import { serveProcess } from './wrk.ts';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const work = mkdtempSync(join(tmpdir(), 'landlex-bench-ogc-'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The rows the parcels collection serves by default (in force now), as one SELECT for GDAL's PG driver. */
function parcelsSql(): string {
  const c = collectionById('parcels')!;
  const now: SqlTimes = { date: '(now() AT TIME ZONE j.timezone)::date', known: 'now()' };
  const props = c.properties.map((p) => `${p.sql} AS ${p.name}`).join(', ');
  return `SELECT ${c.keys[0].sql} AS id, ${props}, ${c.geometry} AS geom FROM ${c.from(now)} WHERE ${c.where(now).join(' AND ')}`;
}

/** The walk GDAL makes (limit=10, then the next links), fetched by Node without parsing: seconds and pages. */
async function fetchWalk(base: string, key: string): Promise<{ seconds: number; pages: number }> {
  const started = performance.now();
  let next: string | undefined = `${base}/collections/parcels/items?limit=10`;
  let pages = 0;
  while (next) {
    const res: Response = await fetch(next, { headers: { 'X-API-Key': key } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`items answered ${res.status}: ${text.slice(0, 300)}`);
    pages++;
    // the links come last: read them without parsing the features
    const links = JSON.parse(`{${text.slice(text.lastIndexOf('"links":'))}`) as { links: Array<{ rel: string; href: string }> };
    next = links.links.find((l) => l.rel === 'next')?.href;
  }
  return { seconds: (performance.now() - started) / 1000, pages };
}

/** A database URL as the keyword=value string GDAL's PG driver takes (it appends its own keywords). */
function pgConnection(url: string): string {
  const u = new URL(url);
  const kv: Record<string, string> = { host: u.hostname, port: u.port || '5432', dbname: decodeURIComponent(u.pathname.slice(1)), user: decodeURIComponent(u.username) };
  if (u.password) kv.password = decodeURIComponent(u.password);
  return `PG:${Object.entries(kv)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}='${v.replaceAll("'", "\\'")}'`)
    .join(' ')}`;
}

/** ogr2ogr to a new GeoPackage: seconds, features written (read back), and GDAL's HTTP requests. */
function copy(name: string, args: string[]): { seconds: number; features: number; requests: number } {
  const out = join(work, `${name}.gpkg`);
  rmSync(out, { force: true });
  const started = performance.now();
  const r = spawnSync('ogr2ogr', ['--debug', 'ON', '-f', 'GPKG', out, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`ogr2ogr ${name} exited with ${r.status}: ${r.stderr.split('\n').filter((l) => l.startsWith('ERROR')).join('\n').slice(0, 2000)}`);
  const info = execFileSync('ogrinfo', ['-ro', '-q', out, '-sql', 'SELECT count(*) AS n FROM parcels'], { encoding: 'utf8' });
  const features = Number(/n \(Integer\S*\) = (\d+)/.exec(info)?.[1] ?? Number.NaN);
  const requests = r.stderr.split('\n').filter((l) => l.startsWith('HTTP: Fetch(')).length;
  return { seconds, features, requests };
}

async function main() {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  const pool = createPool(db.url, { max: 2 });
  let server: Awaited<ReturnType<typeof serveProcess>> | null = null;
  try {
    const sql = parcelsSql();
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM (${sql}) x`);
    const want: number = rows[0].n;
    const port = 19_500 + (process.pid % 400);
    // the default configuration: no RATE_LIMIT_PER_SECOND of the bench's own
    const { RATE_LIMIT_PER_SECOND: _ignored, ...env } = process.env;
    server = await serveProcess(['bin/cli.ts', 'serve', '--port', String(port)], port, { ...env, DATABASE_URL: db.url, LOG_LEVEL: 'error' } as Record<string, string>);
    const ogc = `OAPIF:http://127.0.0.1:${port}/map/ogc`;
    console.log(`bench:ogc  ${want} parcels in force (real Cambridge data), ${ROUNDS} rounds of OAPIF and PG in turn, GDAL ${execFileSync('gdalinfo', ['--version'], { encoding: 'utf8' }).trim()}`);

    const oapif: number[] = [];
    const direct: number[] = [];
    const served: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const org = await orgCreate(pool, { name: `bench ogc ${i}`, credits: 1000 });
      const balance = async () => Number((await pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org.organization_id])).rows[0].balance);
      const before = await balance();
      const a = copy('oapif', ['--config', 'GDAL_HTTP_HEADERS', `X-API-Key: ${org.api_key}`, ogc, 'parcels']);
      // the API process writes spends in batches: wait for them
      await new Promise((r) => setTimeout(r, 1500));
      const charged = before - (await balance());
      const b = copy('direct', [pgConnection(db.url), '-sql', sql, '-nln', 'parcels']);
      const w = await fetchWalk(`http://127.0.0.1:${port}/map/ogc`, org.api_key);
      oapif.push(a.seconds);
      direct.push(b.seconds);
      served.push(w.seconds);
      const ok = a.features === want && b.features === want ? 'counts match' : `COUNTS DIFFER (want ${want})`;
      console.log(
        `  round ${i + 1}  OAPIF ${a.seconds.toFixed(2)} s (${Math.round(a.features / a.seconds)} features/s, ${a.requests} requests, ${charged} credits; an extract of them: ${creditsFor(want)})` +
          `  PG ${b.seconds.toFixed(2)} s (${Math.round(b.features / b.seconds)} features/s)  OAPIF/PG ${(a.seconds / b.seconds).toFixed(2)}x  ${ok}` +
          `  (the same ${w.pages} pages fetched by Node, no GDAL: ${w.seconds.toFixed(2)} s)`,
      );
    }
    const [m1, m2] = [median(oapif), median(direct)];
    console.log(`median  OAPIF ${m1.toFixed(2)} s (${Math.round(want / m1)} features/s)  PG ${m2.toFixed(2)} s (${Math.round(want / m2)} features/s)  OAPIF takes ${(m1 / m2).toFixed(2)}x the direct copy; serving the pages alone ${median(served).toFixed(2)} s`);
  } finally {
    await server?.stop();
    await pool.end();
    await db.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
