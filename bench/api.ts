// npm run bench:api — /rule and /place at random points of the real Cambridge data with 16
// concurrent clients, against the bare SQL of the same lookups run through pgbench in the same
// run. Prints requests/s, p50 and p99, and the ratio to the bare throughput (goal ≥ 0.67, p99 <
// 25 ms on a 2-core machine).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from '../store/db.ts';
import { httpLoad } from './http-load.ts';
import { recordStatements } from './record.ts';
import { orgCreate } from '../bin/org.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';

const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const load = async (port: number, key: string, paths: string[]): Promise<Result> => {
  const r = await httpLoad({ port, key, paths, seconds: SECONDS, clients: CLIENTS });
  return { rps: r.rate, p50: r.p50, p99: r.p99, errors: r.errors };
};

function pgbench(url: string, scripts: string[]): number {
  const files = scripts.map((script, i) => {
    const file = join(tmpdir(), `landlex-bench-${process.pid}-${i}.sql`);
    writeFileSync(file, script);
    return ['-f', `${file}@1`];
  });
  const u = new URL(url);
  const r = spawnSync('pgbench', ['-n', '-c', String(CLIENTS), '-j', '2', '-T', String(SECONDS), ...files.flat(), '-h', u.hostname, '-p', u.port || '5432', '-U', u.username || 'postgres', u.pathname.slice(1)], { encoding: 'utf8' });
  const m = /tps = ([\d.]+)/.exec(r.stdout);
  if (!m) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return Math.round(Number(m[1]));
}

async function main() {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  const pool = createPool(db.url, { max: 2 });
  try {
    await pool.query(`CREATE TABLE bench_point AS
      SELECT row_number() OVER () AS n, ST_X(p) AS lon, ST_Y(p) AS lat FROM (
        SELECT ST_PointOnSurface(geom) AS p FROM parcel WHERE geom IS NOT NULL ORDER BY md5(id) LIMIT 1000) x`);
    const { rows: points } = await pool.query('SELECT lat, lon FROM bench_point ORDER BY n');
    const { api_key: key } = await orgCreate(pool, { name: 'bench', credits: 10_000_000 });
    const port = 18_000 + (process.pid % 1000);
    const server = spawn(process.execPath, ['--import', 'tsx', 'bin/cli.ts', 'serve', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'error', RATE_LIMIT_PER_SECOND: '1000000', DB_POOL_SIZE: '16' },
      stdio: 'inherit',
    });
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const pointPaths = (route: string) => points.map((p) => `/${route}?point=${p.lat.toFixed(6)},${p.lon.toFixed(6)}`);
    // The bare SQL: the very statements the API ran for 50 of these requests (recorded in-process,
    // parameters written in), one pgbench script per request, picked at random.
    const ruleScripts = await recordStatements(db.url, key, pointPaths('rule').slice(0, 50));
    const placeScripts = await recordStatements(db.url, key, pointPaths('place').slice(0, 50));
    await load(port, key, pointPaths('rule').slice(0, 200)); // warm up
    const ruleTps = pgbench(db.url, ruleScripts);
    const placeTps = pgbench(db.url, placeScripts);
    const rule = await load(port, key, pointPaths('rule'));
    const place = await load(port, key, pointPaths('place'));
    server.kill('SIGTERM');
    const line = (name: string, r: Result, tps: number) =>
      `${name.padEnd(8)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  | bare SQL ${tps} tps  ratio ${(r.rps / tps).toFixed(2)}`;
    console.log(`bench:api  ${CLIENTS} clients, ${SECONDS} s each, 1,000 random Cambridge parcel points`);
    console.log(line('/rule', rule, ruleTps));
    console.log(line('/place', place, placeTps));
    console.log(`goals: ratio >= 0.67, p99 < 25 ms`);
  } finally {
    await pool.end();
    await db.drop();
  }
}

await main();
