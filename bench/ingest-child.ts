// One ingest in its own process (for bench:ingest): prints {seconds, maxRssMb, outcome} as JSON.
import { createIngestActivities } from '../activities/ingest.ts';
import { createLogger } from '../core/log.ts';
import { FsBlobStore } from '../store/blobs.ts';
import { createPool } from '../store/db.ts';
import { runIngestInProcess } from '../workflows/inprocess.ts';

const pool = createPool(process.env.DATABASE_URL!, { max: 4 });
const activities = createIngestActivities({ pool, blobs: new FsBlobStore(process.env.BLOB_DIR!), log: createLogger('error'), manifestDir: process.env.MANIFEST_DIR });
const t = performance.now();
const [outcome] = await runIngestInProcess(activities, [process.argv[2]]);
const seconds = (performance.now() - t) / 1000;
await pool.end();
process.stdout.write(`${JSON.stringify({ seconds, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), outcome })}\n`);
