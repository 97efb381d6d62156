// Issue 12, defects 6 and 7: the OpenAPI document says what the answers are. Every call here also
// goes through the suite's check of each answer against /openapi.json (test/helpers/check-responses.ts);
// this file asks for the answers the probe found undocumented, on the real Cambridge data.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { OpenApiChecker } from '../helpers/openapi-check.ts';
import { call, cambridgeApi, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
let close: () => Promise<void>;
let doc: any;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(100_000));
  doc = (await call(server, 'GET', '/openapi.json')).body;
}, 300_000);
afterAll(async () => {
  await close();
});

/** The answer, checked again here so a failure names what the document lacks. */
async function documented(method: string, path: string, opts: Parameters<typeof call>[3] = { key }) {
  const r = await call(server, method, path, opts);
  const text = r.body === null ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const problems = new OpenApiChecker(doc).check({ method, path: path.split('?')[0], status: r.status, contentType: r.headers.get('content-type'), text });
  expect(problems, `${method} ${path}`).toEqual([]);
  return r;
}

const code = (r: { body: any }) => r.body?.detail?.error?.code ?? r.body?.code;

describe('statuses the probe found undocumented are documented and answered as documented', () => {
  test('400 from OGC API Features and from tiles', async () => {
    expect((await documented('GET', '/map/ogc/collections/parcels/items?limit=0')).status).toBe(400);
    expect(code(await documented('GET', '/map/ogc/collections/parcels/items?filter=code%20%3D'))).toBe('filter_unparsable');
    const tile = await documented('GET', '/map/district/14/99999/1');
    expect([tile.status, code(tile)]).toEqual([400, 'tile_coordinate_invalid']);
  });

  test('501 not_available', async () => {
    const r = await documented('GET', '/jurisdiction?has_zoning=true');
    expect([r.status, code(r)]).toEqual([501, 'not_available']);
    expect((await documented('GET', '/change_event?since=0&region=sta_00000000000000000000')).status).toBe(501);
  });

  test('204 for a tile with no feature, 304 for a tile revalidated', async () => {
    const empty = await documented('GET', '/map/district/14/0/0');
    expect(empty.status).toBe(204);
    const full = await documented('GET', '/map/district/14/4954/6059');
    expect(full.status).toBe(200);
    const again = await documented('GET', '/map/district/14/4954/6059', { key, headers: { 'If-None-Match': full.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  test('403 for registration while it is closed', async () => {
    const body = { organization_name: 'Acme', email: 'a@example.test', password: 'long-enough-pw', first_name: 'A', last_name: 'B' };
    const r = await documented('POST', '/organization', { body });
    expect([r.status, code(r)]).toEqual([403, 'entitlement_missing']);
  });

  test('an id in the query that names nothing is 422 naming it; 404 stays for path ids', async () => {
    for (const [path, field] of [
      ['/parcel?jurisdiction=no-such-town', 'jurisdiction'],
      ['/change_event?since=0&county=jur_00000000000000000000', 'county'],
      ['/rule?parcel=prc_00000000000000000000', 'parcel'],
      ['/map/district/image?parcel=prc_00000000000000000000', 'parcel'],
    ] as const) {
      const r = await documented('GET', path);
      const error = r.body.detail.error;
      expect([r.status, error.code, error.field], path).toEqual([422, 'parameter_invalid', field]);
    }
    const v1 = await documented('GET', '/v1/zoning?fips=25999');
    expect([v1.status, v1.body.code, v1.body.errors[0].field]).toEqual([422, 'parameter_invalid', 'fips']);
    const path = await documented('GET', '/jurisdiction/no-such-town');
    expect([path.status, code(path)]).toEqual([404, 'no_such_resource']);
  });
});

describe('dry runs answer the shape the document gives them', () => {
  test('a collection priced with dry_run=true has item null and its price', async () => {
    const r = await documented('GET', '/document?dry_run=true');
    expect(r.status).toBe(200);
    expect(r.body.item).toBeNull();
    expect(r.body.request.dry_run).toBe(true);
    expect(r.body.meta.cost_estimate).toBe(1);
  });

  test('/v1/zoning?dry_run=true answers a dry_run object, not a list', async () => {
    const r = await documented('GET', '/v1/zoning?jurisdiction=cambridge-ma&dry_run=true');
    expect(r.body).toMatchObject({ object: 'dry_run', dry_run: true, cost_estimate: 1 });
    expect(r.body.data).toBeUndefined();
  });

  test('an extract priced with dry_run=true answers its estimate', async () => {
    const r = await documented('POST', '/extract?dry_run=true', { key, body: { resource: 'jurisdiction', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' } } });
    expect(r.body.item.object).toBe('extract_estimate');
  });
});

describe('paths', () => {
  test('a trailing slash names no resource: 404, no collection served', async () => {
    for (const p of ['/document/', '/jurisdiction/', '/v1/zoning/', '/health/', '/map/ogc/collections/']) {
      const r = await call(server, 'GET', p, { key });
      expect([p, r.status, code(r)]).toEqual([p, 404, 'no_such_resource']);
    }
  });

  test("OGC's landing page answers with a trailing slash too, as OWSLib asks for it, and is documented so", async () => {
    const r = await documented('GET', '/map/ogc/', { key: undefined });
    expect(r.status).toBe(200);
    expect(doc.paths['/map/ogc/'].get.operationId).toBe('ogcLandingPageSlash');
  });
});

test("the change feed's document says seq increases but is not contiguous", async () => {
  const op = doc.paths['/change_event'].get;
  expect(op.description).toMatch(/not contiguous/);
  expect(op.description).toMatch(/gap/);
  expect(op.parameters.find((p: { name: string }) => p.name === 'since').description).toMatch(/not contiguous/);
});

test('a server with routes of its own documents them, so its answers are checked against its own table', async () => {
  const { allRoutes } = await import('../../api/routes/index.ts');
  const extra = { id: 'probeDocumented', method: 'GET' as const, path: '/probe/documented', summary: 'probe', tag: 'Probe', credential: 'public' as const, form: 'plain' as const, handler: async () => ({ item: { ok: true } }) };
  const other = await startTestServer({}, [...allRoutes, extra]);
  try {
    const served = (await call(other, 'GET', '/openapi.json')).body;
    expect(served.paths['/probe/documented'].get.operationId).toBe('probeDocumented');
    expect(doc.paths['/probe/documented']).toBeUndefined();
    expect((await call(other, 'GET', '/probe/documented')).status).toBe(200);
  } finally {
    await other.close();
  }
});
