// OAuth 2 over real HTTP and PostgreSQL, driven by a real client library (oauth4webapi): discovery
// from the server metadata, authorization code with PKCE through the sign-in page to a loopback
// redirect (any port, as QGIS listens), client credentials, refresh with rotation, revocation
// (RFC 7009); tokens used on keyed routes, scoped and charged like keys; refusals by RFC 6749's
// codes and the spec's credential errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { sha256Hex } from '../../core/ids.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let callback: Server;
let callbackBase: string;
/** what the loopback redirect target received, newest last */
const received: URL[] = [];
let as: oauth.AuthorizationServer;

const insecure = { [oauth.allowInsecureRequests]: true };
const errorOf = (r: Call) => [r.status, r.body?.detail?.error?.code];

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  // the app's loopback redirect target (QGIS listens on http://127.0.0.1:<port>/ the same way)
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? '/', callbackBase);
    if (url.pathname === '/openapi.json') return void res.writeHead(404).end();
    received.push(url);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You may close this window.');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackBase = `http://127.0.0.1:${(callback.address() as AddressInfo).port}`;
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => {
  await new Promise((resolve) => callback.close(resolve));
  await server.close();
});

async function orgWithSession(credits = 100) {
  const org = await createTestOrg(server, credits);
  const s = await call(server, 'POST', '/session', { body: { email: org.email, password: org.password, organization_id: org.organizationId } });
  expect(s.status).toBe(200);
  return { ...org, bearer: s.body.item.access_token as string };
}

type Org = Awaited<ReturnType<typeof orgWithSession>>;

async function register(o: Org, body: Record<string, unknown>) {
  const r = await call(server, 'POST', '/oauth/client', { bearer: o.bearer, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.item as { id: string; client_secret: string | null; scopes: string[]; grant_types: string[] };
}

/** QGIS's way: a public client whose redirect URI is on loopback, registered without a port. */
const publicClient = (o: Org, scopes?: string[]) => register(o, { name: 'QGIS', type: 'public', redirect_uris: ['http://127.0.0.1/callback'], ...(scopes ? { scopes } : {}) });

const hiddenFields = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2].replace(/&#(\d+);/g, (_x, c) => String.fromCharCode(Number(c)))]));

/** What a browser does: open the authorization URL, fill in the page's form, follow the redirect. */
async function browser(url: URL, form: { email: string; password: string; decision?: string }) {
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200) return { page, html, posted: null, redirectedTo: null };
  const posted = await fetch(new URL('/oauth/authorize', server.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...hiddenFields(html), email: form.email, password: form.password, decision: form.decision ?? 'allow' }),
    redirect: 'manual',
  });
  const location = posted.headers.get('location');
  if (location) expect((await fetch(location)).status).toBe(200);
  return { page, html, posted, redirectedTo: location ? received.at(-1)! : null };
}

function authorizationUrl(clientId: string, p: Record<string, string>) {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({ client_id: clientId, response_type: 'code', ...p })) url.searchParams.set(k, v);
  return url;
}

/** Authorization code with PKCE up to the callback: the checked callback parameters, the verifier and redirect URI used. */
async function authorize(o: Org, client: { id: string }, scope = 'law:read maps:read') {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = `${callbackBase}/callback`;
  const url = authorizationUrl(client.id, { redirect_uri: redirectUri, scope, state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const { page, html, redirectedTo } = await browser(url, o);
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(html).toContain('QGIS');
  expect(redirectedTo!.origin).toBe(callbackBase);
  const params = oauth.validateAuthResponse(as, { client_id: client.id }, redirectedTo!, state);
  return { params, verifier, redirectUri };
}

async function exchange(client: { id: string }, a: Awaited<ReturnType<typeof authorize>>, overrides: { verifier?: string; redirectUri?: string } = {}) {
  const c = { client_id: client.id };
  const res = await oauth.authorizationCodeGrantRequest(as, c, oauth.None(), a.params, overrides.redirectUri ?? a.redirectUri, overrides.verifier ?? a.verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, c, res);
}

async function oauthErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return err.error;
    throw err;
  }
  throw new Error('expected an OAuth error response');
}

async function balance(org: string): Promise<number> {
  await server.services.meter.flush();
  const { rows } = await server.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org]);
  return Number(rows[0].balance);
}

describe('discovery', () => {
  test('the metadata names the endpoints, S256 only, and the scopes of keys', () => {
    expect(as).toMatchObject({
      issuer: server.url.replace(/\/$/, ''),
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      revocation_endpoint: `${server.url}/oauth/revocation`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toContain('law:read');
  });

  test('both OpenAPI documents declare the oauth2 scheme with these URLs', async () => {
    const api = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(api.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({ authorizationUrl: as.authorization_endpoint, tokenUrl: as.token_endpoint });
    expect(api.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(as.token_endpoint);
    expect(api.paths['/jurisdiction'].get.security).toContainEqual({ oauth2: ['law:read'] });
    const ogc = await (await fetch(`${server.url}/map/ogc/api`)).json();
    expect(ogc.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({ authorizationUrl: as.authorization_endpoint, tokenUrl: as.token_endpoint });
  });
});

describe('authorization code with PKCE', () => {
  test('a person signs in; the token answers a keyed route, is charged to the organization, and is counted per client', async () => {
    const o = await orgWithSession(100);
    const client = await publicClient(o);
    expect(client.client_secret).toBeNull();
    const tokens = await exchange(client, await authorize(o, client));
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'law:read maps:read' });
    expect(tokens.expires_in).toBeGreaterThan(3590);
    expect(tokens.access_token).toMatch(/^llo_/);
    expect(tokens.refresh_token).toMatch(/^llr_/);
    // only hashes are stored
    const { rows } = await server.services.pool.query('SELECT access_hash, refresh_hash FROM oauth_token WHERE client_id = $1', [client.id]);
    expect(rows).toEqual([{ access_hash: sha256Hex(tokens.access_token), refresh_hash: sha256Hex(tokens.refresh_token!) }]);

    const before = await balance(o.organizationId);
    const r = await call(server, 'GET', '/jurisdiction', { bearer: tokens.access_token });
    expect(r.status).toBe(200);
    expect(await balance(o.organizationId)).toBe(before - 1);

    const actor = await call(server, 'GET', '/me/actor', { bearer: tokens.access_token });
    expect(actor.body.item).toMatchObject({ kind: 'oauth_token', oauth_client: { id: client.id, name: 'QGIS' }, person: { email: o.email }, organization: { id: o.organizationId } });
    expect(actor.body.item.scopes.map((s: { scope: string }) => s.scope)).toEqual(['law:read', 'maps:read']);

    const usage = await call(server, 'GET', '/usage', { key: o.apiKey });
    expect(usage.body.item.by_key).toContainEqual({ id: client.id, kind: 'oauth_client', name: 'oauth: QGIS', requests: 2, credits: 1 });
  });

  test('a scope the token lacks is scope_missing; a console-only route refuses it as it refuses keys', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const tokens = await exchange(client, await authorize(o, client, 'maps:read'));
    expect(tokens.scope).toBe('maps:read');
    expect(errorOf(await call(server, 'GET', '/jurisdiction', { bearer: tokens.access_token }))).toEqual([403, 'scope_missing']);
    expect(errorOf(await call(server, 'POST', '/key', { bearer: tokens.access_token, body: { name: 'x' } }))).toEqual([403, 'api_key_not_accepted']);
    expect(errorOf(await call(server, 'GET', '/me', { bearer: tokens.access_token }))).toEqual([403, 'person_required']);
  });

  test('a wrong code_verifier, a reused code and a wrong redirect_uri are invalid_grant; reuse revokes what the code gave', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const wrongVerifier = await authorize(o, client);
    expect(await oauthErrorOf(exchange(client, wrongVerifier, { verifier: oauth.generateRandomCodeVerifier() }))).toBe('invalid_grant');
    // the failed attempt used the code up (no guessing the verifier)
    expect(await oauthErrorOf(exchange(client, wrongVerifier))).toBe('invalid_grant');

    const wrongRedirect = await authorize(o, client);
    expect(await oauthErrorOf(exchange(client, wrongRedirect, { redirectUri: `${callbackBase}/elsewhere` }))).toBe('invalid_grant');

    const once = await authorize(o, client);
    const tokens = await exchange(client, once);
    expect((await call(server, 'GET', '/jurisdiction', { bearer: tokens.access_token })).status).toBe(200);
    expect(await oauthErrorOf(exchange(client, once))).toBe('invalid_grant');
    expect(errorOf(await call(server, 'GET', '/jurisdiction', { bearer: tokens.access_token }))).toEqual([401, 'credential_invalid']);
  });

  test('refresh tokens rotate; a refresh token used twice ends its grant', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const first = await exchange(client, await authorize(o, client));
    const c = { client_id: client.id };
    const second = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, oauth.None(), first.refresh_token!, insecure));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await call(server, 'GET', '/jurisdiction', { bearer: second.access_token })).status).toBe(200);
    const replay = oauth.refreshTokenGrantRequest(as, c, oauth.None(), first.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, c, r));
    expect(await oauthErrorOf(replay)).toBe('invalid_grant');
    expect(errorOf(await call(server, 'GET', '/jurisdiction', { bearer: second.access_token }))).toEqual([401, 'credential_invalid']);
  });

  test('revoked (RFC 7009) and expired tokens are refused with the credential errors', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const c = { client_id: client.id };
    const revoked = await exchange(client, await authorize(o, client));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, oauth.None(), revoked.access_token, insecure));
    const refused = await call(server, 'GET', '/jurisdiction', { bearer: revoked.access_token });
    expect(errorOf(refused)).toEqual([401, 'credential_invalid']);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    // revoking the refresh token ends the grant: the refresh token too
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, oauth.None(), revoked.refresh_token!, insecure));
    const refresh = oauth.refreshTokenGrantRequest(as, c, oauth.None(), revoked.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, c, r));
    expect(await oauthErrorOf(refresh)).toBe('invalid_grant');
    // an unknown token is revoked without complaint
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, oauth.None(), 'llo_unknown', insecure));

    const expired = await exchange(client, await authorize(o, client));
    await server.services.pool.query(`UPDATE oauth_token SET access_expires_at = now() - interval '1 minute' WHERE access_hash = $1`, [sha256Hex(expired.access_token)]);
    expect(errorOf(await call(server, 'GET', '/jurisdiction', { bearer: expired.access_token }))).toEqual([401, 'credential_expired']);
  });
});

describe('a confidential client without PKCE (QGIS 3.22 has no PKCE: its secret authenticates it)', () => {
  test('authorization code with client_secret_post and no code_verifier; a verifier sent for a code issued without one is refused', async () => {
    const o = await orgWithSession();
    const client = await register(o, { name: 'QGIS 3.22', type: 'confidential', redirect_uris: ['http://127.0.0.1/'] });
    expect(client.grant_types).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    const c = { client_id: client.id };
    const code = async () => {
      const state = oauth.generateRandomState();
      const { redirectedTo } = await browser(authorizationUrl(client.id, { redirect_uri: `${callbackBase}/`, state, scope: 'maps:read' }), o);
      return oauth.validateAuthResponse(as, c, redirectedTo!, state);
    };
    const redirect = `${callbackBase}/`;
    const tokens = await oauth.processAuthorizationCodeResponse(as, c, await oauth.authorizationCodeGrantRequest(as, c, oauth.ClientSecretPost(client.client_secret!), await code(), redirect, oauth.nopkce, insecure));
    expect(tokens.scope).toBe('maps:read');
    const downgrade = oauth.authorizationCodeGrantRequest(as, c, oauth.ClientSecretPost(client.client_secret!), await code(), redirect, oauth.generateRandomCodeVerifier(), insecure);
    expect(await oauthErrorOf(downgrade.then((r) => oauth.processAuthorizationCodeResponse(as, c, r)))).toBe('invalid_grant');
    // without its secret a confidential client is not itself, PKCE or not
    const noSecret = oauth.authorizationCodeGrantRequest(as, c, oauth.None(), await code(), redirect, oauth.generateRandomCodeVerifier(), insecure);
    expect(await oauthErrorOf(noSecret.then((r) => oauth.processAuthorizationCodeResponse(as, c, r)))).toBe('invalid_client');
  });
});

describe('in a real browser', () => {
  test('Chromium shows the page, the person signs in and allows, and lands on the loopback redirect with a code that works', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const redirectUri = `${callbackBase}/callback`;
    const url = authorizationUrl(client.id, { redirect_uri: redirectUri, scope: 'maps:read', state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const page = await browser.newPage();
      await page.goto(url.href);
      expect(await page.textContent('body')).toContain('QGIS asks to use Landlex');
      if (process.env.OAUTH_SCREENSHOT) await page.screenshot({ path: process.env.OAUTH_SCREENSHOT });
      await page.fill('#email', o.email);
      await page.fill('#password', o.password);
      await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[value=allow]')]);
      expect(await page.textContent('body')).toContain('You may close this window.');
      const params = oauth.validateAuthResponse(as, { client_id: client.id }, new URL(page.url()), state);
      const tokens = await exchange(client, { params, verifier, redirectUri });
      expect((await call(server, 'GET', '/me/actor', { bearer: tokens.access_token })).body.item.person.email).toBe(o.email);
    } finally {
      await browser.close();
    }
  });
});

describe('the authorization endpoint', () => {
  test('faults the client made go back to its redirect URI; an untrusted client or redirect URI gets a page', async () => {
    const o = await orgWithSession();
    const client = await publicClient(o);
    const redirect_uri = `${callbackBase}/callback`;
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    const back = async (p: Record<string, string>) => {
      const r = await fetch(authorizationUrl(client.id, { redirect_uri, state: 's1', ...p }), { redirect: 'manual' });
      expect(r.status).toBe(302);
      const to = new URL(r.headers.get('location')!);
      expect(to.origin + to.pathname).toBe(redirect_uri);
      expect(to.searchParams.get('state')).toBe('s1');
      expect(to.searchParams.get('iss')).toBe(as.issuer);
      return to.searchParams.get('error');
    };
    expect(await back({})).toBe('invalid_request'); // a public client without PKCE
    expect(await back({ code_challenge: challenge, code_challenge_method: 'plain' })).toBe('invalid_request');
    expect(await back({ code_challenge: challenge })).toBe('invalid_request'); // no method means plain
    expect(await back({ code_challenge: challenge, code_challenge_method: 'S256', scope: 'root' })).toBe('invalid_scope');
    expect(await back({ code_challenge: challenge, code_challenge_method: 'S256', response_type: 'token' })).toBe('unsupported_response_type');

    for (const url of [authorizationUrl(client.id, { redirect_uri: 'https://evil.example/cb' }), authorizationUrl('cln_0123456789abcdefghjk', { redirect_uri })]) {
      const r = await fetch(url, { redirect: 'manual' });
      expect(r.status).toBe(400);
      expect(r.headers.get('location')).toBeNull();
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  test('a wrong password shows the page again; a person of another organization cannot allow; deny is access_denied', async () => {
    const o = await orgWithSession();
    const other = await orgWithSession();
    const client = await publicClient(o);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizationUrl(client.id, { redirect_uri: `${callbackBase}/callback`, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    for (const who of [{ email: o.email, password: 'not-the-password' }, { email: other.email, password: other.password }]) {
      const { posted } = await browser(url, who);
      expect(posted!.status).toBe(401);
      expect(await posted!.text()).toContain('do not match a person of this organization');
    }
    const { redirectedTo } = await browser(url, { ...o, decision: 'deny' });
    expect(redirectedTo!.searchParams.get('error')).toBe('access_denied');
    expect(() => oauth.validateAuthResponse(as, { client_id: client.id }, redirectedTo!, oauth.expectNoState)).toThrow(oauth.AuthorizationResponseError);
  });
});

describe('client credentials', () => {
  test('a confidential client gets a token for the organization, within its scopes; a wrong secret is invalid_client', async () => {
    const o = await orgWithSession(100);
    const client = await register(o, { name: 'nightly job', type: 'confidential', scopes: ['law:read', 'maps:read'] });
    expect(client.client_secret).toMatch(/^llcs_/);
    expect(client.grant_types).toEqual(['client_credentials']);
    const c = { client_id: client.id };
    const grant = (auth: oauth.ClientAuth, scope?: string) =>
      oauth.clientCredentialsGrantRequest(as, c, auth, scope ? { scope } : {}, insecure).then((r) => oauth.processClientCredentialsResponse(as, c, r));

    const all = await grant(oauth.ClientSecretBasic(client.client_secret!));
    expect(all).toMatchObject({ token_type: 'bearer', scope: 'law:read maps:read' });
    expect(all.refresh_token).toBeUndefined();
    const before = await balance(o.organizationId);
    expect((await call(server, 'GET', '/jurisdiction', { bearer: all.access_token })).status).toBe(200);
    expect(await balance(o.organizationId)).toBe(before - 1);
    const actor = await call(server, 'GET', '/me/actor', { bearer: all.access_token });
    expect(actor.body.item).toMatchObject({ kind: 'oauth_token', person: null, oauth_client: { id: client.id } });

    const maps = await grant(oauth.ClientSecretPost(client.client_secret!), 'maps:read');
    expect(errorOf(await call(server, 'GET', '/jurisdiction', { bearer: maps.access_token }))).toEqual([403, 'scope_missing']);
    expect(await oauthErrorOf(grant(oauth.ClientSecretBasic(client.client_secret!), 'account:write'))).toBe('invalid_scope');

    const wrong = await oauth.clientCredentialsGrantRequest(as, c, oauth.ClientSecretBasic('llcs_wrong'), {}, insecure);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await wrong.json()).error).toBe('invalid_client');

    // a public client has no secret to prove itself with
    const pub = await publicClient(o);
    expect(await oauthErrorOf(oauth.clientCredentialsGrantRequest(as, { client_id: pub.id }, oauth.None(), {}, insecure).then((r) => oauth.processClientCredentialsResponse(as, { client_id: pub.id }, r)))).toBe('invalid_client');
  });

  test('the token endpoint wants a form, each parameter once', async () => {
    const json = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials' }) });
    expect([json.status, (await json.json()).error]).toEqual([400, 'invalid_request']);
    const twice = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&grant_type=client_credentials' });
    expect([twice.status, (await twice.json()).error]).toEqual([400, 'invalid_request']);
    const unknown = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&client_id=cln_0123456789abcdefghjk' });
    expect((await unknown.json()).error).toMatch(/^(invalid_client|unsupported_grant_type)$/);
  });
});

describe('clients of an organization', () => {
  test('registered with a console session, listed without secrets, deleted with their tokens; another organization sees none', async () => {
    const o = await orgWithSession();
    const other = await orgWithSession();
    expect(errorOf(await call(server, 'POST', '/oauth/client', { key: o.apiKey, body: { name: 'x', type: 'public', redirect_uris: ['http://127.0.0.1/'] } }))).toEqual([403, 'api_key_not_accepted']);
    const bad = await call(server, 'POST', '/oauth/client', { bearer: o.bearer, body: { name: 'x', type: 'public', redirect_uris: ['http://example.com/cb'] } });
    expect(bad.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'redirect_uris[0]' });
    const noUri = await call(server, 'POST', '/oauth/client', { bearer: o.bearer, body: { name: 'x', type: 'public' } });
    expect(noUri.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'redirect_uris' });

    const client = await publicClient(o, ['maps:read']);
    const secretful = await register(o, { name: 'job', type: 'confidential' });
    const list = await call(server, 'GET', '/oauth/client', { key: o.apiKey });
    expect(list.body.item.map((c: { id: string }) => c.id)).toEqual([secretful.id, client.id]);
    expect(JSON.stringify(list.body)).not.toContain(secretful.client_secret!);
    expect((await call(server, 'GET', '/oauth/client', { key: other.apiKey })).body.item).toEqual([]);
    expect(errorOf(await call(server, 'DELETE', `/oauth/client/${client.id}`, { key: other.apiKey }))).toEqual([404, 'no_such_resource']);

    const tokens = await exchange(client, await authorize(o, client, 'maps:read'));
    expect((await call(server, 'GET', '/me/actor', { bearer: tokens.access_token })).status).toBe(200);
    expect((await call(server, 'DELETE', `/oauth/client/${client.id}`, { key: o.apiKey })).status).toBe(204);
    expect((await call(server, 'DELETE', `/oauth/client/${client.id}`, { bearer: o.bearer })).status).toBe(204);
    expect(errorOf(await call(server, 'GET', '/me/actor', { bearer: tokens.access_token }))).toEqual([401, 'credential_invalid']);
    const gone = await fetch(authorizationUrl(client.id, { redirect_uri: `${callbackBase}/callback` }), { redirect: 'manual' });
    expect(gone.status).toBe(400);
  });
});
