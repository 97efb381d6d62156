// Issue 12, defect 3: NUL bytes and impossible dates are refused where parameters and bodies are
// validated (422 naming the field; 400 on OGC API Features), never passed on to PostgreSQL as a
// 500. Every parameter and path segment of every operation is tried, on the real Cambridge data.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routeParams } from '../../api/dispatch.ts';
import { allRoutes } from '../../api/routes/index.ts';
import type { RunningServer } from '../../api/server.ts';
import { call, cambridgeApi, createTestOrg } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
let bearer: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(100_000));
  const org = await createTestOrg(server, 100_000);
  const s = await call(server, 'POST', '/session', { body: { email: org.email, password: org.password, organization_id: org.organizationId } });
  bearer = s.body.item.access_token;
}, 300_000);
afterAll(async () => {
  await close();
});

const NUL = 'a%00b';
const isOgc = (path: string) => path.startsWith('/map/ogc');

/** code and field of a refusal in either shape (a /v1 problem names the field in errors[0]) */
function refusal(r: { body: any }): { code?: string; field?: string | null } {
  if (r.body?.detail?.error) return r.body.detail.error;
  return { code: r.body?.code, field: r.body?.errors?.[0]?.field };
}

/** The refusal a bad parameter gets: 422 parameter_invalid, or 400 ogc_parameter_invalid on OGC. */
function expectRefused(r: { status: number; body: any }, field: string, ogc: boolean, what: string) {
  const error = refusal(r);
  expect({ what, status: r.status, code: error?.code, field: error?.field }).toEqual({
    what,
    status: ogc ? 400 : 422,
    code: ogc ? 'ogc_parameter_invalid' : 'parameter_invalid',
    field,
  });
}

/** A path of the route with every parameter filled, one of them (if named) with a NUL byte. */
function pathOf(template: string, nulIn?: string): string {
  const fill: Record<string, string> = { z: '14', x: '4954', y: '6059', layer: 'district', collectionId: 'districts' };
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === nulIn ? NUL : (fill[name] ?? 'x')));
}

describe('a NUL byte', () => {
  const cases = allRoutes.flatMap((route) =>
    routeParams(route).map((p) => {
      const field = p.prefix ? `${p.name}[a]` : p.name;
      const path = p.in === 'path' ? pathOf(route.path, p.name) : `${pathOf(route.path)}?${encodeURIComponent(field)}=${NUL}`;
      return { id: `${route.method} ${route.path} ${p.in} ${field}`, method: route.method, path, field };
    }),
  );

  test(`in each of the ${cases.length} query parameters and path segments of every operation is refused naming it`, async () => {
    expect(cases.length).toBeGreaterThan(200);
    const wrong: string[] = [];
    for (const c of cases) {
      const ogc = isOgc(c.path);
      const r = await call(server, c.method, c.path, { bearer }).catch((err: Error) => ({ status: 0, body: { code: err.message } }));
      const error = refusal(r);
      if (r.status !== (ogc ? 400 : 422) || error?.code !== (ogc ? 'ogc_parameter_invalid' : 'parameter_invalid') || error?.field !== c.field) {
        wrong.push(`${c.id}: ${r.status} ${error?.code} ${error?.field}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('the cases the probe found are among them and answer 422 with a key as well', async () => {
    for (const [path, field] of [
      ['/rule?use=a%00b&address=1%20Main', 'use'],
      ['/jurisdiction/a%00b', 'id'],
      ['/parcel?jurisdiction=cambridge-ma&apn=a%00b', 'apn'],
      ['/place/suggestion?q=a%00b', 'q'],
      ['/document?q=a%00b', 'q'],
    ]) {
      expectRefused(await call(server, 'GET', path, { key }), field, false, path);
    }
  });

  test('in an OGC property=value parameter (accepted as an extra) is refused with 400', async () => {
    const r = await call(server, 'GET', '/map/ogc/collections/districts/items?code_raw=a%00b', { key });
    expectRefused(r, 'code_raw', true, 'code_raw');
  });

  test('in a body is refused naming the field, in each body the probe tried', async () => {
    const citation = (await server.services.pool.query('SELECT id FROM citation ORDER BY id LIMIT 1')).rows[0].id;
    const bodies: Array<[string, string, { key?: string; bearer?: string }, unknown, string]> = [
      ['POST', `/citation/${citation}/correction`, { key }, { subject: 'the setback', claim: 'a\u0000b' }, 'claim'],
      ['POST', '/key', { bearer }, { name: 'a\u0000b' }, 'name'],
      ['POST', '/place/batch', { key }, { item: [{ address: '1 Main St' }, { address: 'a\u0000b' }] }, 'item[1].address'],
      ['POST', '/extract', { key }, { resource: 'parcel', format: 'jsonl', scope: { jurisdiction: 'a\u0000b' } }, 'scope.jurisdiction'],
      ['POST', '/extract', { key }, { resource: 'parcel', format: 'jsonl', scope: { jurisdiction: ['cambridge-ma', 'a\u0000b'] } }, 'scope.jurisdiction[1]'],
      ['POST', '/key', { bearer }, { name: 'ok', 'x\u0000': 1 }, 'x\u0000'],
    ];
    for (const [method, path, who, body, field] of bodies) {
      const r = await call(server, method, path, { ...who, body });
      expectRefused(r, field, false, `${path} ${field}`);
    }
    expect((await server.services.pool.query('SELECT count(*)::int AS n FROM correction')).rows[0].n).toBe(0);
  });
});

describe('an impossible date', () => {
  test('in /document?recorded[gte] and retrieved[gte] is refused naming the parameter', async () => {
    for (const name of ['recorded[gte]', 'retrieved[gte]']) {
      for (const v of ['2024-02-30', '0', '-1', '1.5', '2023-02-29', '2024-13-01', '0000-01-01', '2024-02-30T00:00:00Z']) {
        const r = await call(server, 'GET', `/document?${encodeURIComponent(name)}=${encodeURIComponent(v)}`, { key });
        expectRefused(r, name, false, `${name}=${v}`);
      }
    }
    const ok = await call(server, 'GET', '/document?recorded%5Bgte%5D=2024-02-29&retrieved%5Bgte%5D=2024-02-29T10:00:00Z', { key });
    expect(ok.status).toBe(200);
  });

  test('in as_of, known_as_of and filters is refused naming the parameter', async () => {
    const asked: Array<[string, string]> = [
      ['/rule?address=1%20Main%20St&as_of=2024-02-30', 'as_of'],
      ['/rule?address=1%20Main%20St&as_of=from:2024-02-01%20to:2024-02-30', 'as_of'],
      ['/rule?address=1%20Main%20St&known_as_of=2023-02-29T10:00:00Z', 'known_as_of'],
      ['/parcel?jurisdiction=cambridge-ma&as_of=2024-04-31', 'as_of'],
      ['/document?filter%5Brecorded_on%5D%5Bgte%5D=2024-02-30', 'filter[recorded_on][gte]'],
      ['/document?filter%5Blast_retrieved_at%5D%5Blt%5D=2024-02-30', 'filter[last_retrieved_at][lt]'],
      ['/change_event?since=0&known_as_of=2024-02-30', 'known_as_of'],
    ];
    for (const [path, field] of asked) expectRefused(await call(server, 'GET', path, { key }), field, false, path);
    const ogc = await call(server, 'GET', '/map/ogc/collections/districts/items?datetime=2024-02-30', { key });
    expectRefused(ogc, 'datetime', true, 'datetime');
  });

  test('in a body is refused naming the field, before anything is charged or created', async () => {
    for (const [body, field] of [
      [{ resource: 'parcel', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' }, as_of: '2024-02-30' }, 'as_of'],
      [{ resource: 'parcel', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' }, known_as_of: '2023-02-29T00:00:00Z' }, 'known_as_of'],
      [{ resource: 'parcel', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' }, filter: { effective_from: { gte: '2024-02-30' } } }, 'filter.effective_from.gte'],
    ] as const) {
      expectRefused(await call(server, 'POST', '/extract', { key, body }), field, false, field);
    }
    expect((await server.services.pool.query('SELECT count(*)::int AS n FROM extract')).rows[0].n).toBe(0);
  });
});

describe('what the fuzzer found (npm run fuzz)', () => {
  test('an empty parameter is refused naming it, never read as absent further on (was a 500)', async () => {
    for (const path of ['/place?address=', '/rule?address=', '/place?geometry=', '/place?apn=&fips=25017', '/document?q=', '/map?layer=']) {
      const name = path.split('?')[1].split('=')[0];
      expectRefused(await call(server, 'GET', path, { key }), name, false, path);
    }
  });

  test('an empty location in a body is refused naming it (was a 500)', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/place/batch', { item: [{ address: '' }] }, 'item[0].address'],
      ['/rule/batch', { item: [{ apn: '', fips: '25017' }] }, 'item[0].apn'],
      ['/v1/parcel/batch', { item: [{ address: '' }] }, 'item[0].address'],
      ['/place/proposal', { location: { address: '' } }, 'location.address'],
      ['/place', { geometry: '' }, 'geometry'],
    ];
    for (const [path, body, field] of cases) {
      const r = await call(server, 'POST', path, { key, body });
      expectRefused(r, field, false, path);
    }
  });

  test('a PLSS key in one item of a batch is that item’s refusal (501 not_available), not the batch’s', async () => {
    const r = await call(server, 'POST', '/place/batch', { key, body: { item: [{ plss: 'CO:06:T001S:R068W:12:NE' }, { address: '1 BRATTLE SQ' }] } });
    expect(r.status).toBe(201);
    expect(r.body.item.item[0]).toMatchObject({ status: 'refused', error: { code: 'not_available', field: 'plss' } });
    expect(r.body.item.item[1].status).not.toBe('refused');
  });

  test('an extract scoped by a statistical area, none held, is 501 not_available, as its document says', async () => {
    const r = await call(server, 'POST', '/extract?dry_run=true', { key, body: { resource: 'parcel', format: 'jsonl', scope: { region: 'sta_00000000000000000000' } } });
    expect([r.status, r.body.detail.error.code, r.body.detail.error.field]).toEqual([501, 'not_available', 'scope.region']);
  });
});

test('a parameter that takes one value, given twice, is refused naming it, whoever parses it (a second point was dropped)', async () => {
  for (const [path, name] of [
    ['/place?point=42.3736,-71.1097&point=42.38,-71.12', 'point'],
    ['/jurisdiction?state=MA&state=NY', 'state'],
    ['/parcel?jurisdiction=cambridge-ma&jurisdiction=somerville-ma', 'jurisdiction'],
    ['/rule?address=1%20BRATTLE%20SQ&as_of=2024-01-01&as_of=2025-01-01', 'as_of'],
  ]) {
    expectRefused(await call(server, 'GET', path, { key }), name, false, path);
  }
  const ogc = await call(server, 'GET', '/map/ogc/collections/parcels/items?bbox-crs=http://www.opengis.net/def/crs/OGC/1.3/CRS84&bbox-crs=x', { key });
  expectRefused(ogc, 'bbox-crs', true, 'bbox-crs');
});
