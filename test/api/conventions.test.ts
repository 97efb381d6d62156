// Conventions every route shares: envelope, request ids, error shapes, routing refusals, OpenAPI.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { call, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('envelope and errors', () => {
  test('an unversioned answer carries request, meta and item', async () => {
    const r = await call(server, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.body.request).toEqual({ path: '/', param: {}, dry_run: false });
    expect(r.body.meta).toMatchObject({ api_version: 'v1', contract_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), vocabulary_version: expect.any(String) });
    expect(r.body.meta.request_id).toMatch(/^req_[0-9a-z]{20}$/);
    expect(r.headers.get('x-request-id')).toBe(r.body.meta.request_id);
  });

  test('an unknown path is 404 no_such_resource in the unversioned error shape', async () => {
    const r = await call(server, 'GET', '/no/such/thing');
    expect(r.status).toBe(404);
    expect(r.body.detail.error).toMatchObject({ code: 'no_such_resource', message_title: 'No such resource' });
  });

  test('a /v1 path refuses with a problem object', async () => {
    const r = await call(server, 'GET', '/v1/no-such-thing');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.body).toMatchObject({ code: 'no_such_resource', status: 404, detail: expect.any(String) });
  });

  test('a known path with another method is 405 with Allow', async () => {
    const r = await call(server, 'DELETE', '/health');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.body.detail.error.code).toBe('method_not_allowed');
  });

  test('an unknown query parameter is 422 naming it', async () => {
    const r = await call(server, 'GET', '/health?sise=3');
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'sise' });
  });

  test('a key in the query string is refused and never logged', async () => {
    const r = await call(server, 'GET', '/?api_key=llk_secretsecret');
    expect(r.status).toBe(401);
    expect(r.body.detail.error).toMatchObject({ code: 'credential_invalid', field: 'api_key' });
  });

  test('the error vocabulary lists every code of the contract with its status', async () => {
    const r = await call(server, 'GET', '/vocabulary/error_code');
    const byCode = Object.fromEntries(r.body.item.map((e: { code: string; status: number }) => [e.code, e.status]));
    const contract = {
      credential_missing: 401, credential_invalid: 401, credential_expired: 401, quota_exhausted: 402,
      entitlement_missing: 403, scope_missing: 403, person_required: 403, api_key_not_accepted: 403,
      no_such_resource: 404, version_conflict: 409, parameter_invalid: 422, id_malformed: 422, field_unknown: 422,
      vocabulary_value_unknown: 422, cursor_expired: 422, cursor_snapshot_gone: 422, cursor_sort_mismatch: 422,
      sort_requires_query: 422, rate_limited: 429, not_available: 501,
    };
    for (const [code, status] of Object.entries(contract)) expect(byCode[code], code).toBe(status);
  });
});

test('GET /openapi.json is a valid OpenAPI 3.1 document describing every route served', async () => {
  const r = await call(server, 'GET', '/openapi.json');
  expect(r.status).toBe(200);
  expect(r.body.openapi).toBe('3.1.0');
  const doc = await SwaggerParser.validate(structuredClone(r.body));
  expect(doc.paths?.['/health']?.get?.operationId).toBe('getHealth');
  const { allRoutes } = await import('../../api/routes/index.ts');
  for (const route of allRoutes) {
    expect(r.body.paths[route.path]?.[route.method.toLowerCase()]?.operationId, `${route.method} ${route.path}`).toBe(route.id);
  }
});
