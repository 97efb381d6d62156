// Extract formats on the real Cambridge parcels: each format built through the extract activity
// (the path the API and CLI take), three runs, the median time, the file's size and rows.
//   npx tsx bench/extract-formats.ts [--runs 3] [--resource parcel]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractActivities } from '../activities/extract.ts';
import { FORMATS } from '../activities/extract/formats.ts';
import { type ExtractRequest, planExtract } from '../activities/extract/plan.ts';
import { newId } from '../core/ids.ts';
import { createLogger } from '../core/log.ts';
import { createPool } from '../store/db.ts';
import { insertExtract } from '../store/extracts.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';
import { runExtractInProcess } from '../workflows/extract-inprocess.ts';

const arg = (name: string, fallback: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const runs = Number(arg('--runs', '3'));
const resource = arg('--resource', 'parcel');

const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
const pool = createPool(db.url, { max: 4 });
const dir = await mkdtemp(join(tmpdir(), 'landlex-bench-formats-'));
const activities = createExtractActivities({ pool, dir, log: createLogger('silent') });
try {
  const rows: Array<Record<string, string | number>> = [];
  for (const format of FORMATS) {
    const times: number[] = [];
    let last = { rows: 0, size: 0, name: '' };
    for (let i = 0; i < runs; i++) {
      const req = { resource, format, scope: { jurisdiction: ['cambridge-ma'] } } as ExtractRequest;
      const p = await planExtract(pool, req);
      const id = newId('extract');
      await insertExtract(pool, { id, organizationId: null, resource, format, request: req, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: 0 });
      const t = performance.now();
      const out = await runExtractInProcess(activities, id, { sleep: async () => {} });
      times.push(performance.now() - t);
      if (out.state !== 'succeeded') throw new Error(`${format}: ${out.error}`);
      last = { rows: out.rows, size: out.files[0].size, name: out.files[0].name };
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)];
    rows.push({ format, file: last.name, rows: last.rows, MB: Math.round(last.size / 10_000) / 100, 'median ms': Math.round(ms), 'rows/s': Math.round(last.rows / (ms / 1000)) });
  }
  console.table(rows);
} finally {
  await pool.end();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
}
