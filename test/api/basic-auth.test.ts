// HTTP Basic with the API key as the password (any user name), as QGIS and GDAL send it: accepted
// like X-API-Key; a wrong, revoked or malformed one is credential_invalid naming Authorization,
// with a Basic challenge; a key in a query string is refused whatever else is sent.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type Call, call, createTestOrg, keyChangeHeard, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const refusal = (r: Call) => ({ status: r.status, code: r.body?.detail?.error?.code, field: r.body?.detail?.error?.field });

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
});
afterAll(async () => {
  await server.close();
});

describe('HTTP Basic', () => {
  test('the key as the password, any user name (or none), acts as the key', async () => {
    const org = await createTestOrg(server, 10);
    for (const user of ['qgis', '', 'someone@example.test', 'llk_not_the_key']) {
      const r = await call(server, 'GET', '/me/actor', { headers: basic(user, org.apiKey) });
      expect(r.status, user).toBe(200);
      expect(r.body.item.kind).toBe('api_key');
      expect(JSON.stringify(r.body.item)).toContain(org.organizationId);
    }
    // X-API-Key wins over Authorization when both are sent
    const both = await call(server, 'GET', '/me/actor', { key: org.apiKey, headers: basic('x', 'llk_wrong') });
    expect(both.status).toBe(200);
  });

  test('a wrong key, a password that is not a key, or a malformed header is credential_invalid naming Authorization', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['unknown key', basic('qgis', 'llk_0000000000000000000000000000000000')],
      ['not a key', basic('user', 'pass')],
      ['no colon', { Authorization: `Basic ${Buffer.from('llk_abc').toString('base64')}` }],
      ['not base64', { Authorization: 'Basic ***' }],
      ['empty', { Authorization: 'Basic' }],
    ];
    for (const [why, headers] of cases) {
      const r = await call(server, 'GET', '/me/actor', { headers });
      expect(refusal(r), why).toEqual({ status: 401, code: 'credential_invalid', field: 'Authorization' });
      expect(r.headers.get('www-authenticate'), why).toMatch(/^Basic realm="Landlex"/);
    }
    // a /v1 route answers the same refusal as a problem, saying the key came as the Basic password
    const v1 = await call(server, 'GET', '/v1/zoning', { headers: basic('u', 'llk_0000000000000000000000000000000000') });
    expect([v1.status, v1.body.code]).toEqual([401, 'credential_invalid']);
    expect(v1.body.detail).toMatch(/HTTP Basic password/);
  });

  test('a revoked key sent as Basic is refused naming Authorization', async () => {
    const org = await createTestOrg(server, 10);
    const s = await call(server, 'POST', '/session', { body: { email: org.email, password: org.password, organization_id: org.organizationId } });
    const minted = await call(server, 'POST', '/key', { bearer: s.body.item.access_token, body: { name: 'qgis' } });
    expect(minted.status).toBe(201);
    expect((await call(server, 'GET', '/me/actor', { headers: basic('qgis', minted.body.item.key) })).status).toBe(200);
    expect((await call(server, 'DELETE', `/key/${minted.body.item.id}`, { bearer: s.body.item.access_token })).status).toBe(204);
    await keyChangeHeard(server, minted.body.item.key);
    const r = await call(server, 'GET', '/me/actor', { headers: basic('qgis', minted.body.item.key) });
    expect(refusal(r)).toEqual({ status: 401, code: 'credential_invalid', field: 'Authorization' });
    expect(r.body.detail.error.detail).toMatch(/HTTP Basic password/);
  });

  test('a key in a query string is refused even beside a good Basic header', async () => {
    const org = await createTestOrg(server, 10);
    const r = await call(server, 'GET', `/me/actor?api_key=${org.apiKey}`, { headers: basic('u', org.apiKey) });
    expect(refusal(r)).toEqual({ status: 401, code: 'credential_invalid', field: 'api_key' });
  });

  test('both OpenAPI documents declare basic beside the spec schemes on keyed operations', async () => {
    const doc = (await call(server, 'GET', '/openapi.json')).body;
    expect(doc.components.securitySchemes.basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.paths['/v1/zoning'].get.security).toEqual(expect.arrayContaining([{ apiKey: [] }, { bearer: [] }, { basic: [] }]));
    const org = await createTestOrg(server, 10);
    const ogc = (await call(server, 'GET', '/map/ogc/api', { headers: basic('qgis', org.apiKey) })).body;
    expect(ogc.components.securitySchemes.basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(ogc.paths['/collections/parcels/items'].get.security).toEqual(expect.arrayContaining([{ apiKey: [] }, { basic: [] }]));
  });
});
