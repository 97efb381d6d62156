// npm run bench:search — search across towns over a nation-sized catalogue, in one run:
//  1. the catalogue: Somerville's code (its use tables) and Chicago's 17-2 ingested through the
//     pipeline, then copied in SQL (INSERT … SELECT rewriting every id) to new jurisdictions with
//     their law facts: jurisdiction, source, coverage, districts, permissions, controls, sections
//     (their words and GIN index, migration 026, made by PostgreSQL as for any section), the
//     unlisted-use rule, use labels, authorities, ordinances and moratoriums. Copies share the
//     originals' documents, versions and citations (immutable evidence, read by id); map areas
//     are not copied (neither route reads them). One copy in ten is Chicago's, the rest
//     Somerville's; 16 of every 20 lie in Massachusetts, so a state scope is large.
//  2. at each catalogue size of BENCH_STEPS (default 3,300,3000 copies; the catalogue grows between
//     them, each step timed), /permission?use=USE and /law?q=Q: p50 for one town (jurisdiction=,
//     the first copy) and for one state (state=MA), one client at a time; and the state request at
//     16 clients (wrk) against the bare SQL of the same statements through pgbench (the API's
//     statements recorded in-process with their values, pool and transaction clients alike, and
//     replayed as prepared statements with custom plans: bench/record.ts).
// Prints every figure and a table at the end; goals (at the last size): ours ≥ 0.67 of bare, state
// p50 ≤ 2× town p50. BENCH_SECONDS (default 10) sets each measurement; BENCH_USE, BENCH_Q the
// question; BENCH_KEEP=1 keeps the database (for EXPLAIN). Creates and drops its own database, a
// clone of a template the pipeline loads once (test/helpers/pipeline.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { orgCreate } from '../bin/org.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { startServer } from '../api/server.ts';
import { createPool } from '../store/db.ts';
import { ingestedDatabase } from '../test/helpers/pipeline.ts';
import { type BareResult, pgbench } from './pgbench.ts';
import { bareScripts, type Statement } from './record.ts';
import { type LoadResult, serveApi } from './wrk.ts';

const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const STEPS = (process.env.BENCH_STEPS ?? '3,300,3000').split(',').map(Number);
const USE = process.env.BENCH_USE ?? 'residential.dwelling';
const Q = process.env.BENCH_Q ?? 'accessory dwelling';
const CHUNK = 100; // copies per transaction

/** Copy n's state: 16 in 20 Massachusetts. */
const STATES = `(VALUES (0, '25', 'MA', 'America/New_York'), (16, '33', 'NH', 'America/New_York'), (17, '09', 'CT', 'America/New_York'),
                        (18, '36', 'NY', 'America/New_York'), (19, '17', 'IL', 'America/Chicago')) st(k, fips, postal, tz)`;

/** The fact tables copied per jurisdiction, and the columns whose ids are rewritten (beside id, jurisdiction_id, source_id). */
const FACTS: Record<string, string[]> = {
  source: [],
  coverage: [],
  use_label: [],
  authority: [],
  district: [],
  permission: ['district_id'],
  control: ['district_id'],
  unlisted_use_rule: [],
  section: [],
  ordinance: [],
  moratorium: ['ordinance_id'],
};

/** An id of the original, rewritten for the copy m: same prefix, a body from the original and the copy. */
const newId = (e: string) => `CASE WHEN ${e} IS NULL THEN NULL ELSE split_part(${e}, '_', 1) || '_' || left(md5(${e} || m.id), 20) END`;

/** The columns an INSERT gives (not generated, not a serial's). */
async function columns(db: pg.Client, table: string): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1
        AND is_generated = 'NEVER' AND coalesce(column_default, '') NOT LIKE 'nextval(%' ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** The original jurisdictions' facts, set apart once: each chunk copies from these small tables, not from the grown ones. */
async function stage(db: pg.Client, originals: string[]) {
  await db.query('CREATE TABLE bench_copy (n int PRIMARY KEY, id text NOT NULL, src text NOT NULL, fips text, postal text, tz text)');
  await db.query('CREATE TABLE bench_src_jurisdiction (LIKE jurisdiction)');
  await db.query('INSERT INTO bench_src_jurisdiction SELECT * FROM jurisdiction WHERE id = ANY($1)', [originals]);
  for (const t of Object.keys(FACTS)) {
    // LIKE makes generated columns plain ones: SELECT * fills them as they are
    await db.query(`CREATE TABLE bench_src_${t} (LIKE ${t})`);
    await db.query(`INSERT INTO bench_src_${t} SELECT * FROM ${t} WHERE jurisdiction_id = ANY($1)`, [originals]);
    await db.query(`CREATE INDEX ON bench_src_${t} (jurisdiction_id)`);
  }
}

/** The indexes and exclusion constraints of the fact tables beside their primary keys: dropped while copies go in, made again after. */
async function secondaries(db: pg.Client): Promise<Array<{ table: string; drop: string; create: string }>> {
  const { rows } = await db.query(
    `SELECT c.relname AS t, i.relname AS name, x.conname, pg_get_constraintdef(x.oid) AS con, pg_get_indexdef(i.oid) AS def
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class c ON c.oid = ix.indrelid
       LEFT JOIN pg_constraint x ON x.conindid = ix.indexrelid AND x.conrelid = c.oid
      WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace AND (x.oid IS NULL OR x.contype = 'x')
      ORDER BY pg_relation_size(c.oid) DESC, i.relname`,
    [Object.keys(FACTS)],
  );
  return rows.map((r) =>
    r.conname
      ? { table: r.t, drop: `ALTER TABLE ${r.t} DROP CONSTRAINT ${r.conname}`, create: `ALTER TABLE ${r.t} ADD CONSTRAINT ${r.conname} ${r.con}` }
      : { table: r.t, drop: `DROP INDEX ${r.name}`, create: r.def },
  );
}

/** Runs the tasks on the workers, each taking the next when done with one. */
async function onWorkers(workers: pg.Client[], tasks: Array<(db: pg.Client) => Promise<void>>) {
  let next = 0;
  await Promise.all(workers.map(async (w) => {
    while (next < tasks.length) await tasks[next++](w);
  }));
}

/**
 * Copies from+1 … to: their jurisdictions, then their facts in chunks of CHUNK copies (a
 * transaction each) on two connections at once, with foreign-key checks off (every reference is
 * a copied row or a shared one, by construction) and the secondary indexes and exclusion
 * constraints dropped, then made again whole and the tables vacuumed and analyzed. Seconds per phase.
 */
async function grow(db: pg.Client, workers: pg.Client[], from: number, to: number, somerville: string, chicago: string) {
  const phase: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (name: string) => {
    phase[name] = (performance.now() - t0) / 1000;
    t0 = performance.now();
  };
  const jcols = await columns(db, 'jurisdiction');
  const jset: Record<string, string> = {
    id: 'm.id',
    slug: `'copy-' || m.n || '-' || x.slug`,
    name: `'Copy ' || lpad(m.n::text, 4, '0') || ' of ' || x.name`,
    legal_name: 'NULL',
    fips_state: 'm.fips',
    fips_county: `lpad(((m.n / 20) % 14 * 2 + 1)::text, 3, '0')`,
    fips_cousub: `CASE WHEN x.level = 'cousub' THEN lpad(m.n::text, 5, '0') END`,
    fips_place: `CASE WHEN x.level = 'place' THEN lpad(m.n::text, 5, '0') END`,
    fips_key: `'us:' || x.level || ':bench' || m.n`,
    gnis_id: 'NULL',
    state_postal: 'm.postal',
    timezone: 'm.tz',
    parent_id: 'NULL',
    boundary: 'NULL',
    created_at: 'now()',
    updated_at: 'now()',
  };
  await db.query(
    `INSERT INTO bench_copy SELECT n, 'jur_' || left(md5('bench-jurisdiction-' || n), 20), CASE WHEN n % 10 = 5 THEN $3 ELSE $4 END, st.fips, st.postal, st.tz
       FROM generate_series($1::int, $2::int) n JOIN ${STATES} ON st.k = CASE WHEN n % 20 < 16 THEN 0 ELSE n % 20 END`,
    [from + 1, to, chicago, somerville],
  );
  await db.query(`INSERT INTO jurisdiction (${jcols.join(', ')}) SELECT ${jcols.map((c) => jset[c] ?? `x.${c}`).join(', ')} FROM bench_copy m JOIN bench_src_jurisdiction x ON x.id = m.src WHERE m.n BETWEEN $1 AND $2`, [from + 1, to]);
  const inserts: string[] = [];
  for (const [t, rewritten] of Object.entries(FACTS)) {
    const cols = await columns(db, t);
    const set: Record<string, string> = {
      id: newId('x.id'),
      jurisdiction_id: 'm.id',
      source_id: `CASE WHEN x.source_id LIKE 'src\\_%' THEN ${newId('x.source_id')} ELSE x.source_id END`,
      governing_jurisdiction_id: 'CASE WHEN x.governing_jurisdiction_id = m.src THEN m.id ELSE x.governing_jurisdiction_id END',
      ...Object.fromEntries(rewritten.map((c) => [c, newId(`x.${c}`)])),
    };
    inserts.push(`INSERT INTO ${t} (${cols.join(', ')}) SELECT ${cols.map((c) => set[c] ?? `x.${c}`).join(', ')} FROM bench_copy m JOIN bench_src_${t} x ON x.jurisdiction_id = m.src WHERE m.n BETWEEN $1 AND $2`);
  }
  const indexes = await secondaries(db);
  for (const i of indexes) await db.query(i.drop);
  lap('prepare');
  const chunks: Array<(w: pg.Client) => Promise<void>> = [];
  let done = 0;
  for (let a = from + 1; a <= to; a += CHUNK) {
    const b = Math.min(to, a + CHUNK - 1);
    chunks.push(async (w) => {
      await w.query('BEGIN');
      for (const sql of inserts) await w.query(sql, [a, b]);
      await w.query('COMMIT');
      done += b - a + 1;
      if (to - from >= 1000 && done % 500 === 0) process.stdout.write(`  ${from + done} copies\n`);
    });
  }
  await onWorkers(workers, chunks);
  lap('copy');
  // one table's indexes on one connection (adding an exclusion constraint locks its table), the largest first
  const tables = [...new Set(indexes.map((i) => i.table))];
  await onWorkers(workers, tables.map((t) => async (w) => {
    for (const i of indexes.filter((x) => x.table === t)) await w.query(i.create);
  }));
  lap('index');
  await db.query(`VACUUM (ANALYZE) jurisdiction, bench_copy, ${Object.keys(FACTS).join(', ')}`);
  lap('vacuum');
  return phase;
}

async function catalogue(db: pg.Client) {
  const { rows } = await db.query(`SELECT (SELECT count(*) FROM jurisdiction)::int AS jurisdictions, (SELECT count(*) FROM jurisdiction WHERE fips_state = '25')::int AS in_ma,
      (SELECT count(*) FROM district)::int AS districts, (SELECT count(*) FROM permission)::int AS permissions, (SELECT count(*) FROM control)::int AS controls,
      (SELECT count(*) FROM section)::int AS sections, pg_size_pretty(pg_database_size(current_database())) AS size`);
  return rows[0] as { jurisdictions: number; in_ma: number; districts: number; permissions: number; controls: number; sections: number; size: string };
}

/** Statements of the API's own bookkeeping (as bench/record.ts leaves out): not the search's work. */
const BOOKKEEPING = /^\s*(INSERT INTO usage_event|INSERT INTO rate_bucket|UPDATE api_key|UPDATE credit_|INSERT INTO credit_|WITH cur AS|SELECT pg_notify|LISTEN|SELECT id, organization_id, name, scopes, expires_at, revoked_at FROM api_key)/;

/**
 * Each request's statements as an in-process server ran them, those of clients taken from the pool
 * (a search's one-snapshot transaction) included; the first `skip` requests (cold caches) left out.
 */
async function record(databaseUrl: string, key: string, path: string, n: number, skip: number): Promise<Statement[][]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000' });
  const server = await startServer(config, { log: createLogger('silent') });
  const pool = server.services.pool;
  // each request's statements: those its own handling runs (its async context), not the server's background work
  const context = new AsyncLocalStorage<Statement[]>();
  let current: Statement[] = [];
  const http = server.server;
  for (const listener of http.listeners('request') as Array<(...a: unknown[]) => void>) {
    http.removeListener('request', listener);
    http.on('request', (...a: unknown[]) => context.run(current, () => listener(...a)));
  }
  // every statement goes through a client's query (pool.query too): each client is wrapped when first checked out
  const wrapped = new WeakSet<object>();
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const original = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
      const q = a[0] as string | { text: string; values?: unknown[] };
      const text = typeof q === 'string' ? q : q.text;
      const values = (Array.isArray(a[1]) ? a[1] : typeof q === 'string' ? undefined : q.values) ?? [];
      if (!BOOKKEEPING.test(text)) context.getStore()?.push({ text, values });
      return original(...a);
    };
  });
  const requests: Statement[][] = [];
  try {
    for (let i = 0; i < n; i++) {
      current = [];
      const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
      await res.text();
      // an answer stopped by the statement timeout ran the same statements: they are the bare side's too
      if (i >= skip) requests.push(current);
    }
    await new Promise((r) => setTimeout(r, 500)); // what an answer keeps after it is sent (passage citations) is its request's too
  } finally {
    await server.close();
  }
  return requests;
}

/**
 * The API sends its search statements unnamed (node-postgres), so PostgreSQL plans each for its
 * values; pgbench's prepared statements would go to a generic plan after five runs. Each script
 * asks for custom plans first, as the API gets them.
 */
function customPlans(args: string[]): string[] {
  for (const a of args) {
    if (a === '-f') continue;
    const file = a.replace(/@\d+$/, '');
    const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [first, 'SET plan_cache_mode = force_custom_plan;', ...rest].join('\n'));
  }
  return args;
}

/** What a request answers: 200 with items (with `copy`, some of them a copy's: the copies are really answered), else its status. */
async function check(port: number, key: string, path: string, copy: boolean): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'X-API-Key': key } });
  const body = (await res.json()) as { item?: Array<{ jurisdiction?: { name?: string } }>; error?: { code?: string } };
  const items = body.item ?? [];
  if (res.status !== 200 && !copy) return `${res.status} ${body.error?.code ?? ''}`;
  if (res.status !== 200 || items.length === 0) throw new Error(`${path} answered ${res.status} with ${items.length} items: ${JSON.stringify(body).slice(0, 400)}`);
  const names = [...new Set(items.map((i) => i.jurisdiction?.name ?? '?'))];
  if (copy && !names.some((x) => x.startsWith('Copy '))) throw new Error(`${path} answered no copy: ${names.join(', ')}`);
  return `200, ${items.length} items from ${names.length} jurisdictions (${names.slice(0, 2).join(', ')}${names.length > 2 ? ', …' : ''})`;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** One client asking `path` again as soon as answered, on one kept-alive connection, for `seconds`: latency without queueing. */
async function oneClient(port: number, key: string, path: string, seconds: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  try {
    while (performance.now() - started < seconds * 1000) {
      const t = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path, agent, headers: { 'X-API-Key': key } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        }).on('error', reject);
      });
      times.push(performance.now() - t);
      if (status !== 200) errors++;
    }
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const q = (p: number) => round1(times[Math.min(times.length - 1, Math.floor(times.length * p))]);
  return { rate: round1((times.length - errors) / elapsed), p50: q(0.5), p99: q(0.99), count: times.length, errors };
}

/**
 * `clients` connections of wrk asking `path` for `seconds`, as bench/wrk.ts's httpLoad does, but
 * waiting up to a minute for an answer (wrk's own limit, 2 s, would drop slow answers uncounted);
 * the rate counts 2xx answers only, errors the others and failed requests.
 */
function wrkLoad(port: number, key: string, path: string, clients: number, seconds: number): LoadResult {
  const dir = mkdtempSync(join(tmpdir(), 'landlex-wrk-search-'));
  try {
    const script = join(dir, 'load.lua');
    writeFileSync(
      script,
      `request = function() return wrk.format("GET", ${JSON.stringify(path)}, { ["X-API-Key"] = ${JSON.stringify(key)} }) end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('{"count":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"status":%d,"failed":%d}\\n', s.requests, s.duration,
    latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`,
    );
    const r = spawnSync('wrk', ['-t', '2', '-c', String(clients), '-d', `${seconds}s`, '--timeout', '60s', '-s', script, `http://127.0.0.1:${port}`], { encoding: 'utf8' });
    const line = r.stdout?.split('\n').find((l) => l.startsWith('{"count"'));
    if (r.status !== 0 || !line) throw new Error(`wrk failed: ${r.error?.message ?? ''} ${r.stderr ?? ''} ${r.stdout ?? ''}`);
    const o = JSON.parse(line) as { count: number; duration_us: number; p50_us: number; p99_us: number; status: number; failed: number };
    return { rate: round1((o.count - o.status) / (o.duration_us / 1e6)), p50: round1(o.p50_us / 1000), p99: round1(o.p99_us / 1000), count: o.count, errors: o.status + o.failed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Figures {
  copies: number;
  inState: number;
  route: string;
  town: LoadResult;
  state: LoadResult;
  ours: LoadResult;
  bare: BareResult;
}

const phases = (p: Record<string, number>) =>
  Object.entries(p)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');
const fmt = (r: LoadResult) =>
  r.count === 0 ? 'no answer within the run' : `${String(r.rate).padStart(6)} req/s  p50 ${String(r.p50).padStart(7)} ms  p99 ${String(r.p99).padStart(7)} ms  errors ${r.errors} of ${r.count}`;
const pad = (v: unknown, n: number) => String(v).padStart(n);

async function main() {
  const db = await ingestedDatabase('search', ['somerville-ma', 'chicago-il']);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  // the copy's connections: no triggers (foreign keys hold by construction), room to build indexes
  const workers = [0, 1].map(() => new pg.Client({ connectionString: db.url, options: '-c session_replication_role=replica -c maintenance_work_mem=512MB' }));
  for (const w of workers) await w.connect();
  const pool = createPool(db.url, { max: 2 });
  let server: Awaited<ReturnType<typeof serveApi>> | null = null;
  try {
    const { rows: js } = await admin.query(`SELECT id, slug FROM jurisdiction WHERE slug IN ('somerville-ma', 'chicago-il')`);
    const somerville = js.find((j) => j.slug === 'somerville-ma')!.id as string;
    const chicago = js.find((j) => j.slug === 'chicago-il')!.id as string;
    await stage(admin, [somerville, chicago]);
    const { api_key: key } = await orgCreate(pool, { name: 'bench', credits: 100_000_000 });
    const port = 18_000 + (process.pid % 1000);
    const paths = (route: string, ask: string) => ({ route, town: `/${route}?${ask}&jurisdiction=copy-1-somerville-ma`, state: `/${route}?${ask}&state=MA` });
    const routes = [paths('permission', `use=${encodeURIComponent(USE)}`), paths('law', `q=${encodeURIComponent(Q)}`)];
    const figures: Figures[] = [];
    const generation: Array<{ copies: number; seconds: number; phase: Record<string, number> }> = [];
    let copies = 0;
    console.log(`bench:search  use=${USE}  q=${JSON.stringify(Q)}  ${SECONDS} s a measurement`);
    for (const step of STEPS) {
      const started = performance.now();
      const phase = await grow(admin, workers, copies, step, somerville, chicago);
      const seconds = (performance.now() - started) / 1000;
      generation.push({ copies: step - copies, seconds, phase });
      copies = step;
      const c = await catalogue(admin);
      console.log(
        `catalogue: ${copies} copies (${generation.at(-1)!.copies} made in ${seconds.toFixed(1)} s: ${phases(phase)}): ${c.jurisdictions} jurisdictions (${c.in_ma} in MA), ${c.districts} districts, ${c.permissions} permissions, ${c.controls} controls, ${c.sections} sections, database ${c.size}`,
      );
      server = await serveApi(db.url, port);
      for (const r of routes) {
        console.log(`  ${r.town}: ${await check(port, key, r.town, true)}`);
        console.log(`  ${r.state}: ${await check(port, key, r.state, false)}`);
        wrkLoad(port, key, r.state, 2, 3); // warm up
        const town = await oneClient(port, key, r.town, SECONDS);
        const state = await oneClient(port, key, r.state, SECONDS);
        console.log(`  /${r.route} 1 client  town  ${fmt(town)}\n  /${r.route} 1 client  state ${fmt(state)}  state/town p50 ${(state.p50 / town.p50).toFixed(2)}`);
        // 16 clients against the same statements bare (recorded after a few requests warm the caches)
        const requests = await record(db.url, key, r.state, 12, 4);
        const scripts = customPlans(await bareScripts(pool, requests, join(tmpdir(), `landlex-bench-search-${process.pid}-${r.route}-${copies}`)));
        wrkLoad(port, key, r.state, CLIENTS, 5); // warm up
        await pool.query('VACUUM ANALYZE citation, answer');
        const ours = wrkLoad(port, key, r.state, CLIENTS, SECONDS);
        await pool.query('VACUUM ANALYZE citation, answer');
        const bare = await pgbench(db.url, scripts, { clients: CLIENTS, seconds: SECONDS, warmupSeconds: 3 });
        console.log(`  /${r.route} ${CLIENTS} clients state ${fmt(ours)}  | bare SQL (${requests[0].length} statements) ${bare.rate} tps  p50 ${bare.p50} ms  p99 ${bare.p99} ms  errors ${bare.errors}  | ratio ${(ours.rate / bare.rate).toFixed(2)}`);
        figures.push({ copies, inState: c.in_ma, route: r.route, town, state, ours, bare });
      }
      await server.stop();
      server = null;
    }

    console.log(`\nbench:search (use=${USE}, q=${JSON.stringify(Q)}; copies: 9 in 10 of Somerville's code, 1 in 10 of Chicago's 17-2; 16 in 20 in MA)`);
    console.log('generation:');
    for (const g of generation) console.log(`  +${pad(g.copies, 4)} copies ${pad(g.seconds.toFixed(1), 7)} s  (${((g.seconds / g.copies) * 1000).toFixed(0)} ms a copy; ${phases(g.phase)})`);
    console.log(`goals at ${copies} copies: state p50 / town p50 ≤ 2 (1 client); ours / bare ≥ 0.67 (state, ${CLIENTS} clients); errors are answers other than 200 (503: the statement timeout)`);
    console.log('  route        copies  in MA | 1 client: town p50  state p50  errors  state/town | 16 clients: ours req/s   p50     p99  errors | bare tps   p50     p99 | ratio');
    for (const f of figures) {
      console.log(
        `  /${f.route.padEnd(11)} ${pad(f.copies, 6)} ${pad(f.inState, 6)} | ${pad(f.town.p50, 18)} ${pad(f.state.p50, 10)} ${pad(f.town.errors + f.state.errors, 7)} ${pad((f.state.p50 / f.town.p50).toFixed(2), 11)} | ${f.ours.count ? `${pad(f.ours.rate, 21)} ${pad(f.ours.p50, 7)} ${pad(f.ours.p99, 7)} ${pad(f.ours.errors, 7)}` : pad('no answer in the run', 44)} | ${pad(f.bare.rate, 8)} ${pad(f.bare.p50, 6)} ${pad(f.bare.p99, 7)} | ${pad((f.ours.rate / f.bare.rate).toFixed(2), 5)}`,
      );
    }
  } finally {
    await server?.stop();
    await pool.end();
    await admin.end();
    for (const w of workers) await w.end();
    if (process.env.BENCH_KEEP) console.log(`kept ${db.url} (BENCH_KEEP): drop it when done`);
    else await db.drop();
  }
}

await main();
