// An ingest killed with SIGKILL at several points, then run again, holds exactly what a clean
// load holds (issue 12, faults): the synthetic town's site in version 1 is loaded once, then
// version 2 is ingested by a real `landlex ingest` process that is killed at a point (a fetch
// that hangs, a version being recorded, inside a load's transaction, with its events about to be
// written, after its commit before it is settled, after its commit before the summary) and run
// again to the end. Every pipeline table's count and fingerprint (test/helpers/fingerprint.ts
// names what is left out) must equal those of a clean version 2 run, with the change events in
// the same order and none recorded twice.
//
// The short form (in `npm test`) kills one version 2 run four times over: inside a load, after a
// commit, while recording a version, while fetching; FAULTS_LONG=1 (`npm run faults:ingest`) kills at every point alone, in each source it
// applies to, and then runs the short form's chain.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createIngestActivities } from '../../activities/ingest.ts';
import { type IngestSummary, runIngest } from '../../bin/ingest.ts';
import { loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/log.ts';
import { FsBlobStore } from '../../store/blobs.ts';
import { SEQ_LOCK } from '../../store/changes.ts';
import { type Client, createPool, type Pool } from '../../store/db.ts';
import { runIngestInProcess } from '../../workflows/inprocess.ts';
import { freshDatabase, urlFor } from '../helpers/databases.ts';
import { eventOrder, fingerprint, printedRows, type TablePrint } from '../helpers/fingerprint.ts';
import { killWhen, loadSessionsGone, spawnIngest, waitingOn, waitingOnSession } from '../helpers/ingest-process.ts';
import { syntheticManifests } from '../helpers/pipeline.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

const LONG = process.env.FAULTS_LONG === '1';

interface Trap {
  /** whether the ingest is caught at the point (polled; may take the next step of the trap) */
  caught(): Promise<boolean>;
  /** let go of whatever holds the point */
  release(): Promise<void>;
  /** what must hold once the ingest has run again */
  after?(): Promise<void>;
}

interface Ctx {
  pool: Pool;
  site: SyntheticSite;
  /** the document row of a source (present once version 1 is loaded) */
  documentOf(key: string): Promise<string>;
}

interface KillPoint {
  name: string;
  arm(ctx: Ctx): Promise<Trap>;
}

const PATHS: Record<string, string> = { ordinances: '/clerk/ordinances.html', 'zoning-code': '/code/zoning.html', 'zoning-map': '/gis/zoning.geojson', permits: '/permits/feed.json', 'registry-index': '/registry/index.csv' };

/** A connection of the test's own holding a lock in an open transaction. */
async function holding(pool: Pool, ...statements: Array<[string, unknown[]?]>): Promise<{ client: Client; pid: number; let: () => Promise<void> }> {
  const client = await pool.connect();
  const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  await client.query('BEGIN');
  for (const [sql, params] of statements) await client.query(sql, params ?? []);
  let done = false;
  return {
    client,
    pid,
    let: async () => {
      if (done) return;
      done = true;
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    },
  };
}

/** The source's GET hangs: killed while fetching. */
const fetching = (key: string): KillPoint => ({
  name: `while fetching ${key}`,
  async arm({ site }) {
    const path = PATHS[key];
    site.fail(path, 'hang');
    return { caught: async () => site.requests.some((r) => r.path === path && r.status === 'hung'), release: async () => site.heal(path) };
  },
});

/** The source's document row is locked: killed while recording the version of the bytes it fetched. */
const versioning = (key: string): KillPoint => ({
  name: `while recording the version of ${key}`,
  async arm({ pool, documentOf }) {
    const hold = await holding(pool, ['SELECT 1 FROM document WHERE id = $1 FOR UPDATE', [await documentOf(key)]]);
    return { caught: () => waitingOnSession(pool, hold.pid), release: hold.let };
  },
});

/** A fact table the load writes is locked: killed inside the load's transaction, facts written before it. */
const loading = (key: string, table: string): KillPoint => ({
  name: `inside the load of ${key} (waiting to write ${table})`,
  async arm({ pool }) {
    const hold = await holding(pool, [`LOCK TABLE ${table} IN SHARE MODE`]);
    return { caught: () => waitingOn(pool, table), release: hold.let };
  },
});

/** The change feed's sequencer is held: killed with every fact of the first load that writes events in place, its events next. */
const eventsNext: KillPoint = {
  name: 'inside the load of ordinances (its facts written, its events next)',
  async arm({ pool }) {
    const hold = await holding(pool, ['SELECT pg_advisory_xact_lock($1)', [SEQ_LOCK]]);
    const waiting = async () =>
      (await pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND objsubid = 1 AND NOT granted`, [SEQ_LOCK])).rows.length > 0;
    return { caught: waiting, release: hold.let };
  },
};

/** The load is held on a fact table until its knowledge_load row is locked, then let go: killed after its commit, before it is settled. */
const settling = (key: string, table: string): KillPoint => ({
  name: `after the commit of ${key}, before it is settled`,
  async arm({ pool }) {
    const stall = await holding(pool, [`LOCK TABLE ${table} IN SHARE MODE`]);
    let row: Awaited<ReturnType<typeof holding>> | null = null;
    let id = 0;
    return {
      async caught() {
        if (!row) {
          const { rows } = await pool.query(`SELECT id FROM knowledge_load WHERE label LIKE $1 AND settled_at IS NULL ORDER BY id DESC LIMIT 1`, [`${key} %`]);
          if (!rows[0] || !(await waitingOn(pool, table))) return false;
          id = rows[0].id;
          row = await holding(pool, ['SELECT 1 FROM knowledge_load WHERE id = $1 FOR UPDATE', [id]]);
          await stall.let();
          return false;
        }
        return waitingOnSession(pool, row.pid);
      },
      release: async () => {
        await stall.let();
        await row?.let();
      },
      // its data committed, its process never settled it: the next run did, where it found it dead
      after: async () => {
        const { rows } = await pool.query('SELECT outcome FROM knowledge_load WHERE id = $1', [id]);
        expect(rows[0].outcome).toBe('abandoned');
      },
    };
  },
});

/** The statistics of a table the load changed cannot be gathered: killed after its commit and settling, before the summary. */
const summarizing = (key: string, table: string): KillPoint => ({
  name: `after the commit of ${key}, before the summary (ANALYZE ${table} waits)`,
  async arm({ pool }) {
    const hold = await holding(pool, [`LOCK TABLE ${table} IN SHARE UPDATE EXCLUSIVE MODE`]);
    return { caught: () => waitingOn(pool, table), release: hold.let };
  },
});

/** The short form: one version 2 run killed four times over, at a point of each kind, in load order. */
const SHORT: KillPoint[][] = [[loading('ordinances', 'moratorium'), summarizing('zoning-code', 'permission'), versioning('zoning-map'), fetching('permits')]];
const EVERY: KillPoint[] = [
  fetching('ordinances'),
  fetching('zoning-code'),
  fetching('zoning-map'),
  fetching('permits'),
  versioning('ordinances'),
  versioning('zoning-code'),
  versioning('zoning-map'),
  versioning('registry-index'),
  loading('ordinances', 'moratorium'),
  loading('zoning-code', 'control'),
  loading('zoning-map', 'district_area'),
  loading('registry-index', 'transaction'),
  loading('permits', 'land_record'),
  eventsNext,
  settling('ordinances', 'moratorium'),
  settling('zoning-code', 'control'),
  settling('zoning-map', 'district_area'),
  summarizing('zoning-code', 'permission'),
  summarizing('zoning-map', 'district_area'),
];
/** The long form: every point alone, then the short form's chain. */
const LONG_FORM: KillPoint[][] = [...EVERY.map((p) => [p]), ...SHORT];

let site: SyntheticSite;
let manifestDir: string;
let blobDir: string;
let base: Awaited<ReturnType<typeof freshDatabase>>;
let reference: { print: Record<string, TablePrint>; events: string[] };
const made: string[] = [];

/** A database holding version 1 (a clone of the base), with a pool. */
async function cloneOfBase(label: string): Promise<{ url: string; pool: Pool }> {
  const url = await urlFor(`landlex_t_faults_${label}_${process.pid}_${Date.now().toString(36)}`, new URL(base.url).pathname.slice(1));
  made.push(url);
  return { url, pool: createPool(url, { max: 4 }) };
}

const env = (url: string) => ({ DATABASE_URL: url, BLOB_DIR: blobDir });

/** Version 2 ingested to the end as `landlex ingest` does it (runIngest), in this process. */
const ingestV2 = (url: string, pool: Pool): Promise<IngestSummary> =>
  runIngest(loadConfig(env(url)), pool, createLogger('silent'), ['millbrook-ma'], { progress: false, manifestDir });

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  manifestDir = await syntheticManifests(site.url);
  blobDir = await mkdtemp(join(tmpdir(), 'landlex-faults-'));
  base = await freshDatabase('faults_base');
  const pool = createPool(base.url, { max: 4 });
  try {
    const acts = createIngestActivities({ pool, blobs: new FsBlobStore(blobDir), log: createLogger('silent'), manifestDir, now: () => new Date('2026-03-05T12:00:00Z') });
    await runIngestInProcess(acts, ['millbrook-ma'], { sleep: async () => {} });
  } finally {
    await pool.end();
  }
  site.setVersion(2);
  // the clean load: version 2 to the end, as the reruns run
  const clean = await cloneOfBase('clean');
  try {
    expect((await ingestV2(clean.url, clean.pool)).totals.failed).toBe(0);
    reference = { print: await fingerprint(clean.pool), events: (await eventOrder(clean.pool)).ids };
  } finally {
    await clean.pool.end();
  }
}, 180_000);

afterAll(async () => {
  const { dropDatabase } = await import('../helpers/databases.ts');
  for (const url of made) await dropDatabase(url).catch(() => {});
  await base?.drop();
  await site?.close();
  await rm(blobDir, { recursive: true, force: true });
  await rm(manifestDir, { recursive: true, force: true });
});

describe(`an ingest killed with SIGKILL and run again equals a clean load (${LONG ? 'every point' : 'short form'})`, () => {
  test('the clean run changed what version 2 changes', () => {
    expect(reference.events.length).toBeGreaterThan(5);
    expect(reference.print.change_event.rows).toBe(reference.events.length);
  });

  for (const points of LONG ? LONG_FORM : SHORT) {
    test(`killed ${points.map((p) => p.name).join(', then ')}; run again to the end`, async () => {
      const db = await cloneOfBase('kill');
      try {
        const ctx: Ctx = {
          pool: db.pool,
          site,
          documentOf: async (key) => (await db.pool.query('SELECT d.id FROM document d JOIN source s ON s.id = d.source_id WHERE s.key = $1', [key])).rows[0].id,
        };
        const traps: Trap[] = [];
        for (const point of points) {
          const trap = await point.arm(ctx);
          traps.push(trap);
          try {
            const run = spawnIngest(env(db.url), ['millbrook-ma', '--manifests', manifestDir, '--json']);
            await killWhen(run, point.name, trap.caught, 60_000);
            // the server ends the dead process's load session within a second, still held up
            await loadSessionsGone(db.pool, 10_000);
          } finally {
            await trap.release();
          }
        }
        expect((await ingestV2(db.url, db.pool)).totals.failed).toBe(0);
        for (const trap of traps) await trap.after?.();

        const print = await fingerprint(db.pool);
        const differ = Object.keys(reference.print).filter((t) => print[t].sha256 !== reference.print[t].sha256 || print[t].rows !== reference.print[t].rows);
        if (differ.length > 0) {
          const [t] = differ;
          const mine = new Set(await printedRows(db.pool, t));
          const clean = await cleanRows(t);
          expect({ tables: differ, extra: [...mine].filter((r) => !clean.has(r)).slice(0, 3), missing: [...clean].filter((r) => !mine.has(r)).slice(0, 3) }).toEqual({ tables: [], extra: [], missing: [] });
        }
        expect(print).toEqual(reference.print);
        const events = await eventOrder(db.pool);
        expect(events.repeated).toEqual([]);
        expect(events.ids).toEqual(reference.events);
        // every killed load was settled (as abandoned, or by its own session before it died)
        const unsettled = await db.pool.query('SELECT label FROM knowledge_load WHERE settled_at IS NULL');
        expect(unsettled.rows).toEqual([]);
      } finally {
        await db.pool.end();
      }
    });
  }
});

/** The clean run's rows of a table (run again into a clone, only when a print differs, to show how). */
async function cleanRows(table: string): Promise<Set<string>> {
  const clean = await cloneOfBase('diff');
  try {
    await ingestV2(clean.url, clean.pool);
    return new Set(await printedRows(clean.pool, table));
  } finally {
    await clean.pool.end();
  }
}
