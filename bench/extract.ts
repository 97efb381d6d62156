// Extract benchmark: a generated county of 1,000,000 square parcels in a scratch database, then
// the extract activity to Parquet and to JSONL, each in a process of its own so each peak RSS is
// its own. Baseline, in the same run: COPY (SELECT …) TO STDOUT of the same rows, drained.
//   npx tsx bench/extract.ts [--rows 1000000] [--keep]
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import { createExtractActivities } from '../activities/extract.ts';
import { type ExtractFormat, planExtract } from '../activities/extract/plan.ts';
import { createLogger } from '../core/log.ts';
import { newId } from '../core/ids.ts';
import { createPool } from '../store/db.ts';
import { insertExtract } from '../store/extracts.ts';
import { createTemplate, dropDatabase, urlFor } from '../test/helpers/databases.ts';

const JUR = 'jur_benchcounty000000000';
const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1];
const mb = (kb: number) => Math.round(kb / 1024);

interface Result {
  phase: string;
  rows: number;
  seconds: number;
  peakRssMb: number;
  bytes: number;
}

/** A county of n parcels: a grid of 20 m squares, each a MultiPolygon with a few attributes. */
async function generate(url: string, n: number) {
  const pool = createPool(url, { max: 1 });
  try {
    await pool.query(
      `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_key, state_postal, timezone)
       VALUES ($1, 'bench-county', 'Bench County', 'county', 'county', '99', '001', 'us:county:99001', 'ZZ', 'America/New_York')`,
      [JUR],
    );
    const side = Math.ceil(Math.sqrt(n));
    await pool.query(
      `INSERT INTO parcel (id, content_sha256, source_id, jurisdiction_id, parcel_key, apn, attributes, geom, geom_sha256, area_m2, valid, known)
       SELECT 'prc_' || lpad(i::text, 20, '0'), md5(i::text), 'bench', $1, 'K-' || i, 'A' || i,
              jsonb_build_object('MAP', i / $2, 'LOT', i % $2, 'USE', (ARRAY['R1', 'R2', 'C', 'I'])[1 + i % 4]),
              ST_Multi(ST_MakeEnvelope(-90 + (i % $2) * 0.0002, 35 + (i / $2) * 0.0002, -90 + (i % $2) * 0.0002 + 0.00018, 35 + (i / $2) * 0.0002 + 0.00018, 4326)),
              md5('g' || i), 400 + (i % 97), daterange('2020-01-01', NULL), tstzrange('2020-01-01', NULL)
         FROM generate_series(0, $3::int - 1) AS i`,
      [JUR, side, n],
    );
    await pool.query('VACUUM ANALYZE parcel');
  } finally {
    await pool.end();
  }
}

/** The same rows and columns as the extract, through COPY TO STDOUT, drained. */
async function baseline(url: string): Promise<Result> {
  const pool = createPool(url, { max: 1 });
  const client = await pool.connect();
  let bytes = 0;
  const started = performance.now();
  try {
    // COPY takes no bound parameters; JUR is this file's constant
    const copy = client.query(
      copyStreams.to(`COPY (SELECT id, jurisdiction_id, parcel_key, apn, map_version_id, area_m2, attributes, lower(valid), upper(valid), lower(known), ST_AsBinary(geom)
        FROM parcel WHERE jurisdiction_id = '${JUR}' ORDER BY fact_id) TO STDOUT`),
    );
    const drain = new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    });
    await pipeline(copy, drain);
    const seconds = (performance.now() - started) / 1000;
    return { phase: 'baseline COPY', rows: copy.rowCount, seconds, peakRssMb: mb(process.resourceUsage().maxRSS), bytes };
  } finally {
    client.release();
    await pool.end();
  }
}

/** One extract through the activity (this runs in a child process of its own). */
async function extract(url: string, format: ExtractFormat): Promise<Result> {
  const pool = createPool(url, { max: 2 });
  const dir = await mkdtemp(join(tmpdir(), 'landlex-bench-'));
  try {
    const p = await planExtract(pool, { resource: 'parcel', format, scope: { jurisdiction: [JUR] } });
    const id = newId('extract');
    await insertExtract(pool, { id, organizationId: null, resource: 'parcel', format, request: {}, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: 0 });
    const acts = createExtractActivities({ pool, dir, log: createLogger('silent') });
    const started = performance.now();
    await acts.startExtract(id);
    const w = await acts.writeExtract(id);
    const seconds = (performance.now() - started) / 1000;
    return { phase: `extract ${format}`, rows: w.rows, seconds, peakRssMb: mb(process.resourceUsage().maxRSS), bytes: w.files[0].size };
  } finally {
    await pool.end();
    await rm(dir, { recursive: true, force: true });
  }
}

function child(url: string, format: ExtractFormat): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = fork(import.meta.filename, ['--child', format, '--url', url], { execArgv: process.execArgv });
    p.once('message', (m) => resolve(m as Result));
    p.once('exit', (code) => code !== 0 && reject(new Error(`${format} extract exited with ${code}`)));
  });
}

async function main() {
  if (process.argv.includes('--child')) {
    process.send!(await extract(arg('--url'), arg('--child') as ExtractFormat));
    return;
  }
  const n = Number(process.argv.includes('--rows') ? arg('--rows') : 1_000_000);
  const url = await urlFor(`landlex_bench_extract_${process.pid}`, await createTemplate());
  try {
    let t = performance.now();
    await generate(url, n);
    console.log(`generated ${n.toLocaleString('en-US')} parcels in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const base = await baseline(url);
    const results = [base, await child(url, 'parquet'), await child(url, 'jsonl')];
    t = base.rows / base.seconds;
    console.log(['phase'.padEnd(16), 'rows'.padStart(10), 'seconds'.padStart(8), 'rows/s'.padStart(10), 'MB out'.padStart(8), 'peak RSS MB'.padStart(12), 'vs baseline'.padStart(12)].join(' '));
    for (const r of results) {
      const rate = r.rows / r.seconds;
      console.log([r.phase.padEnd(16), String(r.rows).padStart(10), r.seconds.toFixed(2).padStart(8), Math.round(rate).toString().padStart(10), (r.bytes / 1e6).toFixed(0).padStart(8), String(r.peakRssMb).padStart(12), `${(rate / t).toFixed(2)}x`.padStart(12)].join(' '));
    }
    const worst = Math.max(...results.slice(1).map((r) => r.peakRssMb));
    console.log(`peak RSS of an extract: ${worst} MB (goal: under 400 MB) ${worst < 400 ? 'met' : 'NOT met'}`);
    if (results.some((r) => r.rows !== n)) throw new Error(`row counts differ from ${n}: ${results.map((r) => r.rows).join(', ')}`);
  } finally {
    if (!process.argv.includes('--keep')) await dropDatabase(url);
  }
}

await main();
