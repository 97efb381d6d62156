// A schema-driven fuzzer of the API: it reads the live /openapi.json, harvests real ids from the
// server, then for every operation sends valid and hostile values per parameter and body field,
// with real credentials, and checks each answer: no 5xx, a status the operation documents, a body
// valid against its documented schema, an answer within 5 s. Case i of a seed is always the same
// request, so a failure is reproduced by its seed and case number (or the curl line printed).
import { request } from 'node:http';
import { OpenApiChecker } from '../helpers/openapi-check.ts';
import { Random } from './random.ts';
import { type Pool, type QueryValue, encodeQuery, filterPair, jsonText, namedValue, nastyBodyText, nastyJson, nastyQuery, objectValue, randomId, schemaValue, tilePath } from './values.ts';

type Json = Record<string, any>;

export interface FuzzOptions {
  url: string;
  /** an API key of an organization with ample credit */
  key: string;
  /** a console session of the same organization's owner */
  bearer: string;
  seed: number;
  cases: number;
  /** stop after this long even if cases remain */
  seconds: number;
  /** requests in flight at once */
  concurrency?: number;
  /** run only these case numbers (reproduction) */
  only?: number[];
  /** log every case with its answer's status */
  trace?: boolean;
  log?: (line: string) => void;
}

export interface Failure {
  case: number;
  operation: string;
  status: number;
  ms: number;
  problem: string;
  curl: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  failures: Failure[];
  ms: number;
  /** answers by status */
  statuses: Record<string, number>;
  /** operations exercised, and how many cases each */
  operations: Record<string, number>;
  slowestMs: number;
}

export const SLOW_MS = 5000;

interface Operation {
  id: string;
  method: string;
  path: string;
  op: Json;
}

interface Planned {
  method: string;
  path: string;
  query: Array<[string, QueryValue]>;
  headers: Record<string, string>;
  body?: string;
}

interface Got {
  status: number;
  contentType: string | null;
  text: string | null;
  ms: number;
}

/** One HTTP exchange on loopback, the path sent byte for byte as planned. */
function send(base: URL, p: Planned, timeoutMs = 60_000): Promise<Got> {
  const qs = p.query.map(([k, v]) => `${encodeQuery(k)}=${encodeQuery(v)}`).join('&');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: base.hostname, port: base.port, method: p.method, path: `${p.path}${qs ? `?${qs}` : ''}`, headers: { ...p.headers, ...(p.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(p.body)) } : {}) }, timeout: timeoutMs },
      (res) => {
        const contentType = res.headers['content-type'] ?? null;
        if (/^text\/event-stream/i.test(contentType ?? '')) {
          // an event stream stays open: its status and type are what is checked
          res.destroy();
          resolve({ status: res.statusCode!, contentType, text: null, ms: performance.now() - started });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, contentType, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (p.body !== undefined) req.write(p.body);
    req.end();
  });
}

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The request as a curl line against $LANDLEX_URL, with $LANDLEX_KEY / $LANDLEX_TOKEN for the credentials. */
export function curlLine(p: Planned): string {
  const qs = p.query.map(([k, v]) => `${encodeQuery(k)}=${encodeQuery(v)}`).join('&');
  const parts = ['curl', '-sS', '-i', '-X', p.method, `"$LANDLEX_URL"${shellQuote(`${p.path}${qs ? `?${qs}` : ''}`)}`];
  for (const [h, v] of Object.entries(p.headers)) {
    if (h === 'X-API-Key') parts.push('-H', '"X-API-Key: $LANDLEX_KEY"');
    else if (h === 'Authorization' && v.startsWith('Bearer ') && v.length > 20) parts.push('-H', '"Authorization: Bearer $LANDLEX_TOKEN"');
    else parts.push('-H', shellQuote(`${h}: ${v}`));
  }
  if (p.body !== undefined) parts.push('--data-binary', p.body.length > 20_000 ? `'<${p.body.length} bytes: rerun the case with npm run fuzz -- --seed S --case N>'` : shellQuote(p.body));
  return parts.join(' ');
}

function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [m, op] of Object.entries<Json>(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(m)) out.push({ id: op.operationId, method: m.toUpperCase(), path, op });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** Real ids and values held by the server, read once through the API, sorted (so runs repeat). */
async function harvest(base: URL, key: string, bearer: string): Promise<Pool> {
  const pool: Record<string, Set<string>> = {};
  const add = (kind: string, v: unknown) => {
    if (typeof v !== 'string' || v === '' || v.length > 4000) return;
    pool[kind] ??= new Set();
    pool[kind].add(v);
  };
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const ask = async (method: string, path: string, body?: unknown, as: Record<string, string> = headers): Promise<any> => {
    const got = await send(base, { method, path, query: [], headers: as, body: body === undefined ? undefined : JSON.stringify(body) });
    if (got.status >= 300 || !got.text) return null;
    for (const m of got.text.matchAll(/"([a-z]{3})_([0-9a-z]{16,40})"/g)) add(m[1], `${m[1]}_${m[2]}`);
    const parsed = JSON.parse(got.text);
    add('cursor', parsed?.page?.next_cursor ?? parsed?.next_cursor);
    return parsed;
  };
  const jurisdictions = await ask('GET', '/jurisdiction?size=50');
  for (const j of jurisdictions?.item ?? []) {
    add('slug', j.slug);
    add('fips_key', j.fips?.key);
  }
  const parcels = await ask('GET', '/parcel?jurisdiction=cambridge-ma&size=25');
  for (const p of parcels?.item ?? []) {
    add('parcel_key', p.parcel_key);
    add('apn', p.apn);
  }
  const districts = await ask('GET', '/jurisdiction/cambridge-ma/district?size=50');
  for (const d of districts?.item ?? []) add('district_code', d.code_raw);
  await ask('GET', '/document?size=10');
  const feed = await ask('GET', '/change_event?since=0&jurisdiction=cambridge-ma&size=50');
  const seqs = (feed?.item ?? []).map((e: { seq: number }) => e.seq);
  add('max_seq', String(seqs.length ? Math.max(...seqs) : 10));
  for (const q of ['Massachusetts', '100 Main', '25 Broadway', '1 Brattle', 'Cambridge St']) {
    const suggestions = await ask('GET', `/place/suggestion?q=${encodeURIComponent(q)}&type=address&size=10`);
    for (const s of suggestions?.item ?? []) add('address', s.label);
  }
  for (const parcel of [...(pool.prc ?? [])].sort().slice(0, 3)) {
    const place = await ask('GET', `/place?parcel=${parcel}`);
    add('loc', place?.resolution?.location_token);
  }
  await ask('GET', '/v1/zoning?jurisdiction=cambridge-ma&size=20');
  const citation = [...(pool.cit ?? [])].sort()[0];
  if (citation) await ask('POST', `/citation/${citation}/correction`, { subject: 'the setback', claim: 'the fuzzer disputes it' });
  await ask('POST', '/invitation', { email: 'fuzz-invitee@example.test' }, { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' });
  await ask('GET', '/map/ogc/collections/parcels/items?limit=5');
  await ask('POST', '/place/batch', { item: [{ address: [...(pool.address ?? ['Massachusetts Ave'])].sort()[0] }] });
  const extract = await ask('POST', '/extract', { resource: 'jurisdiction', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' } });
  if (extract?.item?.id) {
    for (let i = 0; i < 50; i++) {
      const x = await ask('GET', `/extract/${extract.item.id}`);
      if (x?.item?.state === 'succeeded' || x?.item?.state === 'failed') {
        for (const f of x.item.file ?? []) add('extract_file', f.name);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return Object.fromEntries(Object.entries(pool).map(([k, v]) => [k, [...v].sort().slice(0, 60)]));
}

const queryString = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** The request of case i: a function of the seed, i and the harvest only. */
function plan(o: Operation, r: Random, pool: Pool, creds: { key: string; bearer: string }): { planned: Planned; what: string } {
  const params = (o.op.parameters ?? []) as Json[];
  const pathValues: Record<string, string> = {};
  const tile = tilePath(r);
  for (const p of params.filter((x) => x.in === 'path')) pathValues[p.name] = tile[p.name] ?? namedValue(p.name, r, pool) ?? String(schemaValue(p.schema, r, p.name, pool));
  const query: Array<[string, QueryValue]> = [];
  const headers: Record<string, string> = {};
  for (const p of params.filter((x) => x.in === 'query')) {
    const wanted = p.required || (p.name === 'dry_run' ? r.chance(0.12) : r.chance(0.3));
    if (!wanted) continue;
    if (p.style === 'deepObject') {
      if (p.name === 'filter') for (let k = r.int(1, 2); k > 0; k--) query.push(filterPair(r));
      else query.push([`${p.name}[${r.pick(['dimensional.setback_front', 'dimensional.height_max', 'x'])}]`, r.pick(['15ft', '3', '40 ft', 'a'])]);
      continue;
    }
    if (p.name === 'dry_run') {
      query.push([p.name, 'true']);
      continue;
    }
    const v = p.schema?.type === 'array' ? schemaValue({ ...p.schema, minItems: 1 }, r, p.name, pool) : (namedValue(p.name, r, pool) ?? schemaValue(p.schema, r, p.name, pool));
    if (Array.isArray(v)) {
      if (r.chance(0.5)) query.push([p.name, v.map(queryString).join(',')]);
      else for (const x of v) query.push([p.name, queryString(x)]);
    } else query.push([p.name, queryString(v)]);
  }
  if (params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') && r.chance(0.3)) headers['Idempotency-Key'] = r.chance(0.9) ? `fuzz-${r.int(0, 50)}` : r.pick(['', 'k'.repeat(300), 'a b', '%00']);
  if (r.chance(0.05)) headers['If-None-Match'] = r.pick(['"x"', '*', 'W/"abc"', '']);
  if (o.path === '/change_event' && r.chance(0.05)) headers['Last-Event-ID'] = r.pick(['12', '-1', 'x', '99999999999999999999', '']);
  if (o.path === '/change_event' && r.chance(0.1)) headers.Accept = 'text/event-stream';
  if (o.path.startsWith('/v1/zoning') && r.chance(0.1)) headers.Accept = 'application/geo+json';
  if (o.path.endsWith('/items') && r.chance(0.2)) query.push([r.pick(['code_raw', 'kind', 'area_m2', 'jurisdiction']), r.pick(['C-1', 'base', '1000', 'cambridge-ma'])]);
  // an extract is real work (DuckDB writes a file): most are priced, some made
  if (o.id === 'createExtract' && !query.some(([k]) => k === 'dry_run') && r.chance(0.85)) query.push(['dry_run', 'true']);
  const credential = o.op['x-credential'];
  if (credential === 'key') {
    if (r.chance(0.8)) headers['X-API-Key'] = creds.key;
    else headers.Authorization = `Bearer ${r.chance(0.5) ? creds.key : creds.bearer}`;
  } else if (credential !== 'public') headers.Authorization = `Bearer ${creds.bearer}`;
  const schema = o.op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const body: unknown = schema ? objectValue(schema, r, pool) : undefined;
  let bodyText: string | undefined;

  const queryParams = params.filter((p) => p.in === 'query');
  const pathParams = params.filter((p) => p.in === 'path');
  const kinds: Array<[string, number]> = [['valid', 0.35], ['unknown parameter', 0.03]];
  if (queryParams.length) kinds.push(['hostile query', 0.25]);
  if (pathParams.length) kinds.push(['hostile path', 0.1]);
  if (queryParams.length) kinds.push(['repeated', 0.05]);
  if (queryParams.some((p) => p.required)) kinds.push(['missing', 0.03]);
  if (schema) kinds.push(['hostile field', 0.25], ['hostile body', 0.05]);
  if (credential !== 'public') kinds.push(['credential', 0.03]);
  let roll = r.next() * kinds.reduce((a, [, w]) => a + w, 0);
  let kind = 'valid';
  for (const [k, w] of kinds) {
    if (roll < w) {
      kind = k;
      break;
    }
    roll -= w;
  }
  // half the valid cases send only what is required, so every operation also answers plainly
  if (kind === 'valid' && r.chance(0.5)) {
    const required = new Set(queryParams.filter((p) => p.required).map((p) => p.name));
    for (let i = query.length - 1; i >= 0; i--) if (!required.has(query[i][0]) && query[i][0] !== 'dry_run') query.splice(i, 1);
  }
  oneOfEach(o, params, query, pathValues, r, pool);
  let what = kind;
  if (kind === 'hostile query') {
    // a hostile value in one query parameter, given or not
    const name = query.length && r.chance(0.5) ? r.pick(query)[0] : r.pick(queryParams).name;
    const v = nastyQuery(r, pool);
    const at = query.findIndex(([k]) => k === name);
    if (at >= 0) query[at] = [name, v];
    else query.push([name, v]);
    what = `hostile ${name}`;
  } else if (kind === 'hostile path') {
    const p = r.pick(pathParams);
    const v = nastyQuery(r, pool);
    pathValues[p.name] = typeof v === 'string' ? encodeQuery(v) : v.encoded;
    pathValues[`__encoded_${p.name}`] = '1';
    what = `hostile path ${p.name}`;
  } else if (kind === 'repeated') {
    const [k, v] = query.length ? r.pick(query) : [r.pick(queryParams).name, 'x'];
    query.push([k, v], [k, r.chance(0.5) ? v : nastyQuery(r, pool)]);
    what = `repeated ${k}`;
  } else if (kind === 'unknown parameter') {
    query.push([r.pick(['sise', 'filter[', 'filter[x]', 'include[]', '', 'a\u0000b', 'api_key', 'token', '\u0000']), 'x']);
  } else if (kind === 'missing') {
    const name = r.pick(queryParams.filter((p) => p.required)).name;
    for (let i = query.length - 1; i >= 0; i--) if (query[i][0] === name) query.splice(i, 1);
    what = `missing ${name}`;
  } else if (kind === 'hostile field' && body && typeof body === 'object') {
    what = mutateBody(body as Json, schema!, r);
  } else if (kind === 'hostile body') {
    bodyText = nastyBodyText(r);
  } else if (kind === 'credential') {
    delete headers['X-API-Key'];
    delete headers.Authorization;
    const c = r.pick(['none', 'bad', 'key-for-person']);
    if (c === 'bad') headers['X-API-Key'] = r.pick(['llk_bad', 'x', randomId(r, 'llk')]);
    if (c === 'key-for-person') headers['X-API-Key'] = creds.key;
    what = `credential ${c}`;
  }
  const path = o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (pathValues[`__encoded_${name}`] ? pathValues[name] : encodeQuery(pathValues[name])));
  if (body !== undefined && bodyText === undefined) bodyText = jsonText(body);
  if (bodyText !== undefined) headers['Content-Type'] = r.chance(0.03) ? r.pick(['text/plain', 'application/x-www-form-urlencoded']) : 'application/json';
  return { planned: { method: o.method, path, query, headers, body: bodyText }, what };
}

/** Parameters of which an operation takes exactly one (a location, a scope); all but one dropped. */
const GROUPS: Array<{ when: (names: Set<string>, o: Operation) => boolean; members: string[][] }> = [
  { when: (n, o) => o.path.startsWith('/v1/zoning') && n.has('lat'), members: [['jurisdiction'], ['address'], ['lat', 'lon'], ['parcel'], ['bbox'], ['fips']] },
  { when: (n) => n.has('address') && n.has('point'), members: [['address'], ['point'], ['geometry'], ['parcel'], ['apn', 'fips'], ['location_token'], ['plss']] },
  { when: (n) => n.has('region'), members: [['jurisdiction'], ['state'], ['county'], ['geometry']] },
  { when: (_n, o) => o.path.endsWith('/image'), members: [['bbox'], ['parcel']] },
];
const PREFIX_OF: Record<string, string> = { parcels: 'prc', districts: 'dst', overlays: 'dst', jurisdictions: 'jur' };

function oneOfEach(o: Operation, params: Json[], query: Array<[string, QueryValue]>, pathValues: Record<string, string>, r: Random, pool: Pool) {
  const names = new Set(params.map((p) => p.name as string));
  for (const g of GROUPS) {
    if (!g.when(names, o) || r.chance(0.1)) continue;
    const all = new Set(g.members.flat());
    for (let i = query.length - 1; i >= 0; i--) if (all.has(query[i][0])) query.splice(i, 1);
    for (const name of r.pick(g.members.filter((m) => m[0] !== 'location_token' || pool.loc?.length))) {
      query.push([name, name === 'location_token' ? r.pick(pool.loc) : name === 'fips' && names.has('apn') ? '25017' : (namedValue(name, r, pool) ?? 'x')]);
    }
  }
  // a feature of the collection asked for
  if (pathValues.featureId && pathValues.collectionId && r.chance(0.8)) {
    const prefix = PREFIX_OF[pathValues.collectionId];
    if (pool[prefix]?.length) pathValues.featureId = r.pick(pool[prefix]);
  }
  // parameters refused until they can be answered (501), now and then
  for (let i = query.length - 1; i >= 0; i--) if (['has_zoning', 'coverage_tier', 'region', 'plss'].includes(query[i][0]) && r.chance(0.8)) query.splice(i, 1);
}

/** A hostile value somewhere in a body: a field replaced, removed, added, or given the wrong type. */
function mutateBody(body: Json, schema: Json, r: Random): string {
  // descend into a nested object or array element now and then
  let target: Json = body;
  let at = 'body';
  for (let depth = 0; depth < 3 && r.chance(0.5); depth++) {
    const nested = Object.entries(target).filter(([, v]) => v && typeof v === 'object');
    if (!nested.length) break;
    const [k, v] = r.pick(nested);
    target = Array.isArray(v) ? (v.length && typeof v[0] === 'object' && v[0] ? v[0] : v) : v;
    at = `${at}.${k}`;
  }
  const props = Object.keys(schema.properties ?? {});
  const set = (k: string, v: unknown) => {
    if (Array.isArray(target)) target.push(v);
    // defined, not assigned, so "__proto__" and "constructor" are plain keys sent as such
    else Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  };
  const keys = Array.isArray(target) ? [] : [...new Set([...Object.keys(target), ...(target === body ? props : [])])];
  const kind = r.next();
  if (kind < 0.7 && (keys.length || Array.isArray(target))) {
    const k = keys.length ? r.pick(keys) : String(target.length);
    set(k, nastyJson(r));
    return `hostile ${at}.${k}`;
  }
  if (kind < 0.85 && keys.length) {
    delete target[r.pick(keys)];
    return `removed a field of ${at}`;
  }
  set(r.pick(['unknown', 'a\u0000', '', '__proto__', 'constructor']), 1);
  return `unknown field in ${at}`;
}

/** Locations a batch body carries (item[]), else 1: a batch of n is n answers, each held to SLOW_MS. */
function locationsIn(body: string | undefined): number {
  try {
    const items = body ? JSON.parse(body)?.item : undefined;
    return Array.isArray(items) && items.length > 1 ? items.length : 1;
  } catch {
    return 1;
  }
}

/** Runs the cases; never throws for a bad answer (each is a failure in the report). */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const base = new URL(o.url);
  const started = performance.now();
  const docAnswer = await send(base, { method: 'GET', path: '/openapi.json', query: [], headers: {} });
  if (docAnswer.status !== 200 || !docAnswer.text) throw new Error(`GET /openapi.json answered ${docAnswer.status}`);
  const doc = JSON.parse(docAnswer.text) as Json;
  const checker = new OpenApiChecker(doc);
  const operations = operationsOf(doc);
  const pool = await harvest(base, o.key, o.bearer);
  if (o.trace) log(`harvest: ${JSON.stringify(pool)}`);
  log(`fuzz: seed ${o.seed}, ${operations.length} operations, up to ${o.cases} cases or ${o.seconds} s; harvested ${Object.entries(pool).map(([k, v]) => `${k} ${v.length}`).join(', ')}`);

  const report: FuzzReport = { seed: o.seed, cases: 0, failures: [], ms: 0, statuses: {}, operations: {}, slowestMs: 0 };
  const deadline = started + o.seconds * 1000;
  const indexes = o.only ?? Array.from({ length: o.cases }, (_, i) => i);
  let next = 0;
  const worker = async () => {
    while (next < indexes.length && performance.now() < deadline) {
      const i = indexes[next++];
      const r = Random.forCase(o.seed, i);
      // every operation in turn, so a short run covers them all
      const op = operations[i % operations.length];
      let made: ReturnType<typeof plan>;
      try {
        made = plan(op, r, pool, o);
      } catch (err) {
        report.cases++;
        report.failures.push({ case: i, operation: op.id, status: 0, ms: 0, problem: `the fuzzer could not make the case: ${(err as Error).stack}`, curl: '' });
        continue;
      }
      const { planned, what } = made;
      const fail = (status: number, ms: number, problem: string) => {
        report.failures.push({ case: i, operation: op.id, status, ms: Math.round(ms), problem: `${problem} [${what}]`, curl: curlLine(planned) });
        log(`FAIL case ${i} ${op.id} ${status}: ${problem} [${what}]\n  ${curlLine(planned)}`);
      };
      let got: Got;
      try {
        got = await send(base, planned);
      } catch (err) {
        report.cases++;
        fail(0, 0, `no answer: ${(err as Error).message}`);
        continue;
      }
      report.cases++;
      if (o.trace) log(`case ${i} ${op.id} ${got.status} ${Math.round(got.ms)} ms [${what}] ${(got.text ?? '').slice(0, 160)}`);
      report.operations[op.id] = (report.operations[op.id] ?? 0) + 1;
      report.statuses[got.status] = (report.statuses[got.status] ?? 0) + 1;
      report.slowestMs = Math.max(report.slowestMs, Math.round(got.ms));
      const path = planned.path;
      // 501 not_available is the contract's answer for what is not held yet (checked as documented below)
      if (got.status >= 500 && got.status !== 501) fail(got.status, got.ms, `a ${got.status}: ${(got.text ?? '').slice(0, 300)}`);
      else for (const p of checker.check({ method: planned.method, path, status: got.status, contentType: got.contentType, text: got.text })) fail(got.status, got.ms, p);
      const limit = SLOW_MS * locationsIn(planned.body);
      if (got.ms > limit) fail(got.status, got.ms, `answered in ${Math.round(got.ms)} ms (over ${limit} ms)`);
      if (report.cases % 1000 === 0) log(`fuzz: ${report.cases} cases, ${report.failures.length} failures, ${Math.round((performance.now() - started) / 1000)} s`);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 4 }, worker));
  report.ms = Math.round(performance.now() - started);
  return report;
}
