// API keys over real HTTP and PostgreSQL: minted only with a session and shown once, listed
// without the secret, revoked (twice is fine, the record stays), expiry, scopes, credential
// kinds, and isolation between organizations.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES } from '../../core/credentials.ts';
import type { RunningServer } from '../../api/server.ts';
import { type Call, call, createTestOrg, keyChangeHeard, startTestServer } from '../helpers/server.ts';

let server: RunningServer;

async function orgWithSession() {
  const org = await createTestOrg(server, 10);
  const s = await call(server, 'POST', '/session', { body: { email: org.email, password: org.password, organization_id: org.organizationId } });
  expect(s.status).toBe(200);
  return { ...org, bearer: s.body.item.access_token as string };
}

async function mint(bearer: string, body: Record<string, unknown>) {
  const r = await call(server, 'POST', '/key', { bearer, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.item;
}

const errorOf = (r: Call) => [r.status, r.body?.detail?.error?.code];

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
});
afterAll(async () => {
  await server.close();
});

describe('minting and listing', () => {
  test('a key is minted only with a session; its value is returned once and never listed', async () => {
    const o = await orgWithSession();
    expect(errorOf(await call(server, 'POST', '/key', { key: o.apiKey, body: { name: 'ci' } }))).toEqual([403, 'api_key_not_accepted']);

    const k = await mint(o.bearer, { name: 'ci' });
    expect(k).toEqual({
      id: expect.stringMatching(/^key_/), name: 'ci', key: expect.stringMatching(/^llk_/), key_prefix: k.key.slice(0, 12),
      scopes: [...SCOPES], usage_count: 0, created_at: expect.any(String), last_used_at: null, expires_at: null,
    });

    const list = await call(server, 'GET', '/key', { key: k.key });
    expect(list.status).toBe(200);
    expect(list.body.item[0]).toEqual({ ...k, key: undefined, created_at: k.created_at });
    expect(list.body.item.every((x: object) => !('key' in x))).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(k.key);
    const { rows } = await server.services.pool.query('SELECT key_hash FROM api_key WHERE id = $1', [k.id]);
    expect(rows[0].key_hash).not.toContain(k.key);
  });

  test('live keys newest first; a session lists them too; expiry in days', async () => {
    const o = await orgWithSession();
    const older = await mint(o.bearer, { name: 'older' });
    const newer = await mint(o.bearer, { name: 'newer', scopes: ['place:read'], expires_in_days: 30 });
    expect(newer.scopes).toEqual(['place:read']);
    const days = (Date.parse(newer.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const list = await call(server, 'GET', '/key', { bearer: o.bearer });
    expect(list.body.item.map((k: { id: string }) => k.id).slice(0, 2)).toEqual([newer.id, older.id]);
  });

  test('bodies are validated: unknown scope, missing name, bad expiry, unknown field', async () => {
    const o = await orgWithSession();
    const cases: Array<[unknown, string, string]> = [
      [{ name: 'x', scopes: ['root'] }, 'scopes[0]', 'vocabulary_value_unknown'],
      [{ scopes: ['place:read'] }, 'name', 'parameter_invalid'],
      [{ name: 'x', scopes: [] }, 'scopes', 'parameter_invalid'],
      [{ name: 'x', expires_in_days: 0 }, 'expires_in_days', 'parameter_invalid'],
      [{ name: 'x', owner: 'me' }, 'owner', 'parameter_invalid'],
    ];
    for (const [body, field, code] of cases) {
      const r = await call(server, 'POST', '/key', { bearer: o.bearer, body });
      expect(r.status, field).toBe(422);
      expect(r.body.detail.error, field).toMatchObject({ code, field });
    }
  });
});

describe('revoking and expiry', () => {
  test('revoking twice is 204 both times; the revoked key is credential_invalid; the record stays', async () => {
    const o = await orgWithSession();
    const k = await mint(o.bearer, { name: 'leaked' });
    expect((await call(server, 'DELETE', `/key/${k.id}`, { key: o.apiKey })).status).toBe(204);
    expect((await call(server, 'DELETE', `/key/${k.id}`, { bearer: o.bearer })).status).toBe(204);
    expect(errorOf(await call(server, 'GET', '/key', { key: k.key }))).toEqual([401, 'credential_invalid']);
    const list = await call(server, 'GET', '/key', { key: o.apiKey });
    expect(list.body.item.map((x: { id: string }) => x.id)).not.toContain(k.id);
    const { rows } = await server.services.pool.query('SELECT name, revoked_at FROM api_key WHERE id = $1', [k.id]);
    expect(rows[0].name).toBe('leaked');
    expect(rows[0].revoked_at).not.toBeNull();
  });

  test('a key past its expiry is credential_expired and no longer listed', async () => {
    const o = await orgWithSession();
    const k = await mint(o.bearer, { name: 'short-lived', expires_in_days: 1 });
    expect((await call(server, 'GET', '/key', { key: k.key })).status).toBe(200);
    await server.services.pool.query(`UPDATE api_key SET expires_at = now() - interval '1 minute' WHERE id = $1`, [k.id]);
    await keyChangeHeard(server, k.key);
    expect(errorOf(await call(server, 'GET', '/key', { key: k.key }))).toEqual([401, 'credential_expired']);
    const list = await call(server, 'GET', '/key', { key: o.apiKey });
    expect(list.body.item.map((x: { id: string }) => x.id)).not.toContain(k.id);
  });

  test('a malformed key id is 422 id_malformed; an unknown one is 404', async () => {
    const o = await orgWithSession();
    const bad = await call(server, 'DELETE', '/key/inv_0123456789abcdefghjk', { key: o.apiKey });
    expect(bad.body.detail.error).toMatchObject({ code: 'id_malformed', field: 'key_id' });
    expect(errorOf(await call(server, 'DELETE', '/key/key_0123456789abcdefghjk', { key: o.apiKey }))).toEqual([404, 'no_such_resource']);
  });
});

describe('scopes and credential kinds', () => {
  test('a key without the scope is refused with scope_missing', async () => {
    const o = await orgWithSession();
    const place = await mint(o.bearer, { name: 'place only', scopes: ['place:read'] });
    const reader = await mint(o.bearer, { name: 'reader', scopes: ['account:read'] });
    expect(errorOf(await call(server, 'GET', '/key', { key: place.key }))).toEqual([403, 'scope_missing']);
    expect(errorOf(await call(server, 'GET', '/usage', { key: place.key }))).toEqual([403, 'scope_missing']);
    expect(errorOf(await call(server, 'GET', '/credit', { key: place.key }))).toEqual([403, 'scope_missing']);
    expect((await call(server, 'GET', '/key', { key: reader.key })).status).toBe(200);
    expect(errorOf(await call(server, 'DELETE', `/key/${place.id}`, { key: reader.key }))).toEqual([403, 'scope_missing']);
    expect((await call(server, 'GET', '/key', { key: place.key })).status).toBe(403); // still live
  });

  test('a key on a person-only route is person_required', async () => {
    const o = await orgWithSession();
    for (const path of ['/me', '/entitlement', '/invitation']) {
      expect(errorOf(await call(server, 'GET', path, { key: o.apiKey })), path).toEqual([403, 'person_required']);
    }
  });

  test('/me/actor describes a key and a session', async () => {
    const o = await orgWithSession();
    const k = await mint(o.bearer, { name: 'deploy', scopes: ['law:read'] });
    const asKey = await call(server, 'GET', '/me/actor', { key: k.key });
    expect(asKey.status).toBe(200);
    expect(asKey.body.item).toMatchObject({
      kind: 'api_key',
      organization: { id: o.organizationId },
      key: { id: k.id, name: 'deploy', key_prefix: k.key_prefix, scopes: ['law:read'], created_by: o.email },
      scopes: [{ scope: 'law:read', description: expect.any(String) }],
      expires_at: null,
    });
    expect(JSON.stringify(asKey.body)).not.toContain(k.key);
    const asPerson = await call(server, 'GET', '/me/actor', { bearer: o.bearer });
    expect(asPerson.body.item).toMatchObject({ kind: 'session', person: { email: o.email, role: 'owner' }, organization: { id: o.organizationId } });
    expect(Date.parse(asPerson.body.item.expires_at)).toBeGreaterThan(Date.now());
  });
});

describe('isolation', () => {
  test("one organization can neither see nor revoke another's keys", async () => {
    const a = await orgWithSession();
    const b = await orgWithSession();
    const bKey = await mint(b.bearer, { name: 'b-secret' });
    const listA = await call(server, 'GET', '/key', { key: a.apiKey });
    expect(listA.body.item.map((k: { id: string }) => k.id)).not.toContain(bKey.id);
    expect(listA.body.item.every((k: { name: string }) => k.name !== 'b-secret')).toBe(true);
    expect(errorOf(await call(server, 'DELETE', `/key/${bKey.id}`, { key: a.apiKey }))).toEqual([404, 'no_such_resource']);
    expect(errorOf(await call(server, 'DELETE', `/key/${bKey.id}`, { bearer: a.bearer }))).toEqual([404, 'no_such_resource']);
    expect((await call(server, 'GET', '/key', { key: bKey.key })).status).toBe(200);
  });
});
