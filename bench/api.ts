// npm run bench:api — /rule and /place at random points and addresses of the real Cambridge data,
// 16 concurrent clients (wrk), against the bare SQL of the same lookups run through pgbench in
// the same run. Prints requests/s, p50 and p99, and the ratio to the bare throughput (goal ≥
// 0.67, p99 < 25 ms on a 2-core machine).
//
// The bare side is the very statements the API ran for 200 of these requests (recorded
// in-process with their values), replayed by pgbench as prepared statements with parameters
// (bench/record.ts), each answer row inserted anew, in sessions with the API pool's own settings
// (SERVING_OPTIONS). Its one addition: a primary-key read of the request's values per transaction.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orgCreate } from '../bin/org.ts';
import { createPool } from '../store/db.ts';
import { type BareResult, pgbench } from './pgbench.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';
import { bareScripts, recordRequests } from './record.ts';
import { httpLoad, type LoadResult, serveApi } from './wrk.ts';

const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function main() {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  const pool = createPool(db.url, { max: 2 });
  let server: Awaited<ReturnType<typeof serveApi>> | null = null;
  try {
    const { rows: points } = await pool.query(
      `SELECT ST_Y(p) AS lat, ST_X(p) AS lon FROM (SELECT ST_PointOnSurface(geom) AS p FROM parcel WHERE geom IS NOT NULL ORDER BY md5(id) LIMIT 500) x`,
    );
    // addresses as the assessor wrote them, of one parcel each (an address of several is ambiguous)
    const { rows: addresses } = await pool.query(
      `SELECT min(raw) AS raw FROM address_point WHERE parcel_id IS NOT NULL GROUP BY normalized HAVING count(DISTINCT parcel_id) = 1 ORDER BY md5(normalized) LIMIT 500`,
    );
    const { api_key: key } = await orgCreate(pool, { name: 'bench', credits: 100_000_000 });
    const port = 18_000 + (process.pid % 1000);
    server = await serveApi(db.url, port);
    const pathsOf = (route: string) => {
      const p = points.map((x) => `/${route}?point=${x.lat.toFixed(6)},${x.lon.toFixed(6)}`);
      const a = addresses.map((x) => `/${route}?address=${encodeURIComponent(`${x.raw}, Cambridge, MA`)}`);
      return p.flatMap((path, i) => [path, a[i % a.length]]);
    };
    const results: Array<{ route: string; ours: LoadResult; bare: BareResult }> = [];
    for (const route of ['rule', 'place']) {
      const paths = pathsOf(route);
      const scripts = await bareScripts(pool, await recordRequests(db.url, key, paths.slice(0, 200)), join(tmpdir(), `landlex-bench-${process.pid}-${route}`));
      httpLoad({ port, key, paths, seconds: 3, clients: CLIENTS }); // warm up
      // each side starts with the answers of the one before vacuumed (no autovacuum mid-run)
      await pool.query('VACUUM ANALYZE answer');
      const ours = httpLoad({ port, key, paths, seconds: SECONDS, clients: CLIENTS });
      await pool.query('VACUUM ANALYZE answer');
      const bare = await pgbench(db.url, scripts, { clients: CLIENTS, seconds: SECONDS });
      results.push({ route, ours, bare });
    }
    console.log(`bench:api  ${CLIENTS} clients, ${SECONDS} s each, 500 random Cambridge parcel points and 500 assessor addresses`);
    for (const { route, ours: r, bare } of results) {
      console.log(
        `/${route.padEnd(6)} ${String(r.rate).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  | bare SQL ${bare.rate} tps  p50 ${bare.p50} ms  p99 ${bare.p99} ms  | ratio ${(r.rate / bare.rate).toFixed(2)}`,
      );
    }
    console.log('goals: ratio >= 0.67, p99 < 25 ms');
  } finally {
    await server?.stop();
    await pool.end();
    await db.drop();
  }
}

await main();
