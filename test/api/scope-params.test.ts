// Scope parameters (spec 4.0.4) that name nothing are 422 naming the parameter, never 404 (rules
// 1.2.3, 1.2.4), on every operation that takes a scope: the change feed (JSON and stream),
// /coverage and extracts (over HTTP and as the CLI plans them), and resolveScope itself.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { planExtract } from '../../activities/extract/plan.ts';
import type { RunningServer } from '../../api/server.ts';
import type { ApiError } from '../../core/errors.ts';
import { newId, stableId } from '../../core/ids.ts';
import { resolveScope } from '../../core/query/scope.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
const tag = Math.random().toString(36).slice(2, 8);
// a county of our own (state 25, county 9xx) and a town in it
const countyCode = String(900 + Math.floor(Math.random() * 99));
const countyFips = `us:county:25${countyCode}`;
const county = stableId('jurisdiction', countyFips);
const townFips = `us:cousub:25${countyCode}${String(10000 + Math.floor(Math.random() * 9999))}`;
const town = stableId('jurisdiction', townFips);
const unknown = newId('jurisdiction');

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
  const add = (id: string, slug: string, level: string, cousub: string | null, fips: string) =>
    server.services.pool.query(
      `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
       VALUES ($1, $2, $2, $3, $3, '25', $4, $5, $6, 'MA')`,
      [id, slug, level, countyCode, cousub, fips],
    );
  await add(county, `scope-county-${tag}`, 'county', null, countyFips);
  await add(town, `scope-town-${tag}`, 'cousub', townFips.slice(-5), townFips);
});
afterAll(async () => {
  await server.close();
});

/** Each refusal: the scope given, the field named, the code. */
const REFUSED: Array<[Record<string, string>, string, string]> = [
  [{ county: unknown }, 'county', 'parameter_invalid'],
  [{ county: town }, 'county', 'parameter_invalid'],
  [{ county: 'jur_!!' }, 'county', 'id_malformed'],
  [{ county: 'middlesex' }, 'county', 'parameter_invalid'],
  [{ jurisdiction: `no-such-town-${tag}` }, 'jurisdiction', 'parameter_invalid'],
];
const query = (scope: Record<string, string>) => new URLSearchParams(scope).toString();
const error = (r: Call) => [r.status, r.body?.detail?.error?.code, r.body?.detail?.error?.field];

describe('a scope that names nothing is 422 naming it', () => {
  test('GET /change_event, JSON and stream', async () => {
    for (const [scope, field, code] of REFUSED) {
      expect(error(await call(server, 'GET', `/change_event?since=0&${query(scope)}`, { key })), JSON.stringify(scope)).toEqual([422, code, field]);
      const stream = await call(server, 'GET', `/change_event?since=0&${query(scope)}`, { key, headers: { Accept: 'text/event-stream' } });
      expect(error(stream), JSON.stringify(scope)).toEqual([422, code, field]);
    }
  });

  test('GET /coverage', async () => {
    for (const [scope, field, code] of REFUSED) {
      expect(error(await call(server, 'GET', `/coverage?${query(scope)}`, { key })), JSON.stringify(scope)).toEqual([422, code, field]);
    }
  });

  test('POST /extract (the body scope, named scope.<parameter>)', async () => {
    for (const [scope, field, code] of REFUSED) {
      const r = await call(server, 'POST', '/extract?dry_run=true', { key, body: { resource: 'jurisdiction', format: 'jsonl', scope } });
      expect(error(r), JSON.stringify(scope)).toEqual([422, code, `scope.${field}`]);
    }
  });

  test('resolveScope and the extract plan, as the CLI calls them', async () => {
    const db = server.services.pool;
    for (const [scope, field, code] of REFUSED) {
      const p = { ...scope, ...(scope.jurisdiction ? { jurisdiction: [scope.jurisdiction] } : {}) };
      await expect(resolveScope(db, p)).rejects.toMatchObject({ code, field, status: 422 });
      await expect(planExtract(db, { resource: 'jurisdiction', format: 'jsonl', scope } as never)).rejects.toMatchObject({ code, field: `scope.${field}` });
    }
    const notCounty = await resolveScope(db, { county: town }).catch((e: ApiError) => e);
    expect((notCounty as ApiError).detail).toMatch(/not a county/);
  });
});

test('a county named by its jur_ id or its FIPS code scopes to the county and its towns', async () => {
  for (const ref of [county, `25${countyCode}`]) {
    const feed = await call(server, 'GET', `/change_event?since=0&county=${ref}`, { key });
    expect(feed.status).toBe(200);
    expect(feed.body.coverage.scope).toEqual({ kind: 'county', label: `county ${ref}` });
    expect([...feed.body.coverage.not_held.jurisdiction].sort()).toEqual([county, town].sort());
    const coverage = await call(server, 'GET', `/coverage?county=${ref}`, { key });
    expect([...new Set(coverage.body.item.map((i: { jurisdiction: { id: string } }) => i.jurisdiction.id))].sort()).toEqual([county, town].sort());
  }
  const extract = await call(server, 'POST', '/extract?dry_run=true', { key, body: { resource: 'jurisdiction', format: 'jsonl', scope: { county } } });
  expect(extract.body.item.jurisdiction.sort()).toEqual([county, town].sort());
});
