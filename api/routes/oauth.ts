// OAuth 2 (spec 4.1): GET /oauth/authorize (a person of the client's organization signs in and
// allows; authorization code with PKCE S256), POST /oauth/token (authorization_code,
// client_credentials, refresh_token), POST /oauth/revocation (RFC 7009), the server metadata
// (RFC 8414), and the organization's clients (/oauth/client). Tokens act as API keys of the
// client's organization (api/auth.ts), scoped and charged like them.

import { SCOPES } from '../../core/credentials.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { randomToken, requireId } from '../../core/ids.ts';
import { hashPassword, verifyPassword } from '../../core/passwords.ts';
import type { Queryable } from '../../store/db.ts';
import { type ClientRecord, createClient, findClient, listClients, revokeByClient, revokeClient } from '../../store/oauth.ts';
import { findPersonByEmail, membershipRole } from '../../store/people.ts';
import { accountOf } from '../../store/usage.ts';
import { type FormBody, formFields } from '../body.ts';
import { asClient, type OAuthClient, oauthModel } from '../oauth/model.ts';
import { consentPage, PAGE_HEADERS, problemPage } from '../oauth/pages.ts';
import { type Checked, checkAuthorizationRequest, REQUEST_FIELDS, redirectUriProblem, redirectWith } from '../oauth/request.ts';
import { ACCESS_TOKEN_SECONDS, basicCredentials, issueCode, type OAuthAnswer, oauthError, tokenAnswer } from '../oauth/server.ts';
import { type Answer, defineRoutes, type JsonSchema, type Req } from '../route.ts';

const issuerOf = (req: Req) => req.services.config.publicBaseUrl.replace(/\/+$/, '');

async function lookupClient(db: Queryable, clientId: string | undefined): Promise<OAuthClient | null> {
  if (!clientId || clientId.length > 100) return null;
  const c = await findClient(db, clientId);
  return c ? asClient(c) : null;
}

const html = (status: number, body: string): Answer => ({ status, headers: PAGE_HEADERS, contentType: 'text/html; charset=utf-8', body, raw: true });
const redirect = (location: string): Answer => ({ status: 302, headers: { Location: location, 'Cache-Control': 'no-store' }, body: '', raw: true });
const oauthAnswer = (a: OAuthAnswer): Answer => ({ status: a.status, headers: a.headers, body: a.body, raw: true });

/** The authorization request's own fields (the page's form adds email, password and decision). */
function requestFields(all: Record<string, string>, repeated: string[]) {
  const names: readonly string[] = REQUEST_FIELDS;
  return { fields: Object.fromEntries(Object.entries(all).filter(([k]) => names.includes(k))), repeated: repeated.filter((k) => names.includes(k)) };
}

/** A request that cannot go on: a page (no client or redirect URI to trust) or the client's redirect URI with the error. */
function refused(req: Req, c: Exclude<Checked, { kind: 'ok' }>): Answer {
  if (c.kind === 'page') return html(400, problemPage(c.message));
  return redirect(redirectWith(c.redirectUri, { error: c.error, error_description: c.description, state: c.state }, issuerOf(req)));
}

async function consent(req: Req, status: number, client: OAuthClient, scopes: string[], fields: Record<string, string>, extra: { email?: string; problem?: string } = {}): Promise<Answer> {
  const org = await accountOf(req.services.pool, client.organizationId);
  return html(status, consentPage({ clientName: client.name, organizationName: org.name, scopes, fields, ...extra }));
}

async function authorizePage(req: Req): Promise<Answer> {
  const { fields, repeated } = formFields(new URLSearchParams(req.ctx.querystring));
  const client = repeated.includes('client_id') ? null : await lookupClient(req.services.pool, fields.client_id);
  const checked = checkAuthorizationRequest(fields, repeated, client);
  if (checked.kind !== 'ok') return refused(req, checked);
  return consent(req, 200, client!, checked.request.scopes, requestFields(fields, repeated).fields);
}

let dummyHash: Promise<string> | undefined;

/** The person signing in: one of the client's organization, verified; else why not. */
async function signIn(db: Queryable, organizationId: string, email: string, password: string): Promise<{ personId: string } | { status: number; problem: string }> {
  const person = await findPersonByEmail(db, email.trim());
  // an unknown address costs the same scrypt as a known one
  dummyHash ??= hashPassword(randomToken());
  const ok = await verifyPassword(password, person?.password_hash ?? (await dummyHash));
  const role = person && ok ? await membershipRole(db, person.id, organizationId) : null;
  if (!person || !role) return { status: 401, problem: 'The email address and password do not match a person of this organization.' };
  if (!person.verified_at) return { status: 403, problem: 'Confirm your email address first: redeem the link we sent you, then sign in here again.' };
  return { personId: person.id };
}

async function authorizeDecision(req: Req): Promise<Answer> {
  const form = req.body as FormBody;
  const { fields, repeated } = requestFields(form.fields, form.repeated);
  const client = repeated.includes('client_id') ? null : await lookupClient(req.services.pool, fields.client_id);
  const checked = checkAuthorizationRequest(fields, repeated, client);
  if (checked.kind !== 'ok') return refused(req, checked);
  const r = checked.request;
  const decision = form.fields.decision;
  if (decision === 'deny') {
    return redirect(redirectWith(r.redirectUri, { error: 'access_denied', error_description: 'The person denied access.', state: r.state }, issuerOf(req)));
  }
  const email = form.fields.email ?? '';
  if (decision !== 'allow' || !email || !form.fields.password || form.repeated.some((k) => ['email', 'password', 'decision'].includes(k))) {
    return consent(req, 400, client!, r.scopes, fields, { email, problem: 'Give your email address and password, then choose Sign in and allow (or Deny).' });
  }
  const who = await signIn(req.services.pool, client!.organizationId, email, form.fields.password);
  if ('problem' in who) return consent(req, who.status, client!, r.scopes, fields, { email, problem: who.problem });
  const location = await issueCode(req.services.pool, r, who.personId);
  const url = new URL(location);
  url.searchParams.append('iss', issuerOf(req));
  return redirect(url.href);
}

async function token(req: Req): Promise<Answer> {
  const form = req.body as FormBody;
  if (form.repeated.length > 0) return oauthAnswer(oauthError(400, 'invalid_request', `Each parameter may be sent once: ${form.repeated.join(', ')} was sent more than once.`));
  return oauthAnswer(await tokenAnswer(req.services.pool, req.ctx.headers, form.fields));
}

/** RFC 7009: revoke a token the client holds; 200 whether or not it was valid. */
async function revoke(req: Req): Promise<Answer> {
  const form = req.body as FormBody;
  if (!form.form) return oauthAnswer(oauthError(400, 'invalid_request', 'Send the request as application/x-www-form-urlencoded.'));
  if (form.repeated.length > 0) return oauthAnswer(oauthError(400, 'invalid_request', `Each parameter may be sent once: ${form.repeated.join(', ')} was sent more than once.`));
  // client authentication as at the token endpoint (RFC 6749 2.3): HTTP Basic, or client_id (and client_secret) in the form
  const basic = basicCredentials(req.ctx.get('authorization') || undefined);
  if (basic && form.fields.client_secret !== undefined) return oauthAnswer(oauthError(400, 'invalid_request', 'Authenticate the client one way: HTTP Basic or client_secret in the form, not both.'));
  const creds = basic === undefined ? { id: form.fields.client_id, secret: form.fields.client_secret } : basic;
  const client = creds?.id ? await oauthModel(req.services.pool, true).getClient(creds.id, creds.secret) : null;
  if (!client) {
    const refusal = oauthError(basic === undefined ? 400 : 401, 'invalid_client', 'Client authentication failed: send the client_id (and the client_secret of a confidential client) in HTTP Basic or in the form.');
    if (basic !== undefined) refusal.headers['www-authenticate'] = 'Basic realm="Landlex"';
    return oauthAnswer(refusal);
  }
  if (!form.fields.token) return oauthAnswer(oauthError(400, 'invalid_request', 'token is missing.'));
  await revokeByClient(req.services.pool, client.id, form.fields.token);
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: '', raw: true };
}

function metadata(req: Req): Answer {
  const base = issuerOf(req);
  const auth = ['client_secret_basic', 'client_secret_post', 'none'];
  return {
    raw: true,
    contentType: 'application/json',
    body: {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revocation`,
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      token_endpoint_auth_methods_supported: auth,
      revocation_endpoint_auth_methods_supported: auth,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/openapi.json`,
    },
  };
}

// -- the organization's clients

const CLIENT: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'type', 'redirect_uris', 'scopes', 'grant_types', 'created_at'],
  properties: {
    id: { type: 'string', description: 'The client_id (cln_…)' },
    name: { type: 'string' },
    type: { enum: ['public', 'confidential'], description: 'public: no secret, PKCE only; confidential: a secret, and client credentials too' },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] }, description: 'The most any of its tokens may hold' },
    grant_types: { type: 'array', items: { enum: ['authorization_code', 'refresh_token', 'client_credentials'] } },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const CREATED: JsonSchema = {
  ...CLIENT,
  required: [...(CLIENT.required as string[]), 'client_secret'],
  properties: { ...(CLIENT.properties as object), client_secret: { type: ['string', 'null'], description: 'A confidential client’s secret (llcs_…), shown this once; null for a public client' } },
};

const CLIENT_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: 'Shown to the person who signs in (e.g. QGIS)' },
    type: { enum: ['public', 'confidential'], description: 'public for an app that cannot keep a secret (a desktop GIS, a browser page); confidential for a server or program' },
    redirect_uris: {
      type: 'array',
      maxItems: 10,
      uniqueItems: true,
      items: { type: 'string', maxLength: 2000 },
      description: 'Where codes are sent: https, http on a loopback address (any port is then accepted: RFC 8252), or a private-use scheme. None: client credentials only',
    },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, maxItems: SCOPES.length, uniqueItems: true, description: 'Default: every scope' },
  },
};

export function clientItem(c: ClientRecord) {
  return {
    id: c.id,
    name: c.name,
    type: c.confidential ? 'confidential' : 'public',
    redirect_uris: c.redirect_uris,
    scopes: c.scopes,
    grant_types: asClient(c).grants as string[],
    created_at: new Date(c.created_at).toISOString(),
  };
}

async function registerClient({ actor, body, services }: Req): Promise<Answer> {
  const uris: string[] = body.redirect_uris ?? [];
  uris.forEach((u, i) => {
    const why = redirectUriProblem(u);
    if (why) throw new ApiError('parameter_invalid', { field: `redirect_uris[${i}]`, detail: `redirect_uris[${i}] ${why}` });
  });
  if (body.type === 'public' && uris.length === 0) {
    throw new ApiError('parameter_invalid', { field: 'redirect_uris', detail: 'A public client needs at least one redirect URI: it can only ask a person to sign in.' });
  }
  const c = await createClient(services.pool, {
    organizationId: actor!.organizationId,
    name: body.name.trim(),
    confidential: body.type === 'confidential',
    redirectUris: uris,
    scopes: body.scopes ?? SCOPES,
    createdBy: actor!.personId!,
  });
  return { status: 201, item: { ...clientItem(c), client_secret: c.secret } };
}

async function listAll({ actor, services }: Req): Promise<Answer> {
  const clients = await listClients(services.pool, actor!.organizationId);
  return { item: clients.map(clientItem), page: { size: clients.length, next_cursor: null } };
}

async function remove({ actor, params, services }: Req): Promise<Answer> {
  const id = requireId('oauth_client', params.client_id, 'client_id');
  if (!(await revokeClient(services.pool, actor!.organizationId, id))) throw notFound('OAuth client', id);
  return { status: 204 };
}

// -- documents

const OAUTH_ERROR: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'unsupported_token_type'] },
    error_description: { type: 'string' },
  },
};
const OAUTH_ERRORS = {
  400: { description: 'An OAuth refusal (RFC 6749 5.2).', content: { 'application/json': OAUTH_ERROR } },
  401: { description: 'invalid_client: client authentication failed (RFC 6749 5.2).', content: { 'application/json': OAUTH_ERROR } },
};
const HTML = { type: 'string' };

const TOKEN: JsonSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'scope'],
  properties: {
    access_token: { type: 'string', description: 'llo_…: send as Authorization: Bearer' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string', description: 'llr_…: authorization code only; each use returns a new one' },
    scope: { type: 'string' },
  },
};

const str = (description: string) => ({ type: 'string', description });
const TOKEN_FORM: JsonSchema = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { enum: ['authorization_code', 'client_credentials', 'refresh_token'] },
    code: str('authorization_code: the code from the redirect'),
    redirect_uri: str('authorization_code: the redirect_uri of the authorization request, if it named one'),
    code_verifier: str('authorization_code: the PKCE verifier'),
    refresh_token: str('refresh_token: the refresh token'),
    scope: str('Space-delimited scopes: fewer than the grant holds, or none for all of them'),
    client_id: str('The client_id, unless sent in HTTP Basic'),
    client_secret: str('A confidential client’s secret, unless sent in HTTP Basic'),
  },
};

const AUTHORIZE_DESCRIPTION =
  'Query parameters (RFC 6749 4.1.1, RFC 7636): response_type=code, client_id, redirect_uri (required when the client has several), ' +
  'scope (space-delimited; default: the client’s), state, code_challenge and code_challenge_method=S256 (required for a public client). ' +
  'Answers the sign-in page, where a person of the client’s organization gives their email and password and allows or denies; then the ' +
  'browser is sent to redirect_uri with code, state and iss (or error). A request naming no known client or registered redirect URI gets a page saying so, never a redirect.';

export const oauthRoutes = defineRoutes([
  {
    id: 'getOAuthMetadata', method: 'GET', path: '/.well-known/oauth-authorization-server', tag: 'OAuth', credential: 'public', form: 'raw',
    summary: 'OAuth 2 authorization server metadata (RFC 8414)', handler: async (req) => metadata(req),
    response: { type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint'], properties: { issuer: { type: 'string' }, authorization_endpoint: { type: 'string' }, token_endpoint: { type: 'string' }, revocation_endpoint: { type: 'string' } } },
  },
  {
    id: 'authorizeOAuth', method: 'GET', path: '/oauth/authorize', tag: 'OAuth', credential: 'public', form: 'raw', allowExtraQuery: true, produces: ['text/html'],
    summary: 'Authorization code with PKCE: the sign-in and consent page', description: AUTHORIZE_DESCRIPTION, response: HTML, handler: authorizePage,
    answers: { 302: 'Back to the client’s redirect_uri with error (and state, iss): a request the client got wrong.' },
    responses: { 400: { description: 'A page: the request names no known client or registered redirect URI.', content: { 'text/html': HTML } } },
  },
  {
    id: 'decideOAuth', method: 'POST', path: '/oauth/authorize', tag: 'OAuth', credential: 'public', form: 'raw', status: 302, produces: [],
    summary: 'The sign-in page’s form: sign in and allow, or deny; back to the client’s redirect_uri with code, state and iss (or error)',
    formBody: {
      type: 'object',
      properties: { email: { type: 'string' }, password: { type: 'string' }, decision: { enum: ['allow', 'deny'] }, ...Object.fromEntries(REQUEST_FIELDS.map((f) => [f, { type: 'string' }])) },
    },
    handler: authorizeDecision,
    responses: {
      400: { description: 'The page again (a field missing), or a page: no known client or registered redirect URI.', content: { 'text/html': HTML } },
      401: { description: 'The page again: the email and password do not match a person of the client’s organization.', content: { 'text/html': HTML } },
      403: { description: 'The page again: the person has not confirmed their email address.', content: { 'text/html': HTML } },
    },
  },
  {
    id: 'createOAuthToken', method: 'POST', path: '/oauth/token', tag: 'OAuth', credential: 'public', form: 'raw',
    summary: 'Tokens: authorization_code (with code_verifier), client_credentials, refresh_token (RFC 6749, 7636)',
    description: `Access tokens last ${ACCESS_TOKEN_SECONDS} s and act as an API key of the client's organization with the token's scopes; refresh tokens (authorization code only) last 30 days and are exchanged for a new pair at each use.`,
    formBody: TOKEN_FORM, response: TOKEN, handler: token, responses: OAUTH_ERRORS,
  },
  {
    id: 'revokeOAuthToken', method: 'POST', path: '/oauth/revocation', tag: 'OAuth', credential: 'public', form: 'raw', produces: [],
    summary: 'Revoke an access or refresh token the client holds (RFC 7009); a refresh token ends its whole grant',
    formBody: { type: 'object', required: ['token'], properties: { token: str('The access or refresh token'), token_type_hint: { enum: ['access_token', 'refresh_token'] }, client_id: str('Unless in HTTP Basic'), client_secret: str('Unless in HTTP Basic') } },
    handler: revoke, responses: OAUTH_ERRORS,
  },
  {
    id: 'listOAuthClients', method: 'GET', path: '/oauth/client', tag: 'OAuth', form: 'plain', credential: 'key', scope: 'account:read', collection: true,
    summary: "The organization's OAuth clients, newest first; never a secret", response: CLIENT, handler: listAll,
  },
  {
    id: 'createOAuthClient', method: 'POST', path: '/oauth/client', tag: 'OAuth', form: 'plain', credential: 'session', status: 201,
    summary: 'Register an OAuth client (console session only); a confidential client’s secret is returned once', body: CLIENT_BODY, response: CREATED, handler: registerClient,
  },
  {
    id: 'deleteOAuthClient', method: 'DELETE', path: '/oauth/client/{client_id}', tag: 'OAuth', form: 'plain', credential: 'key', scope: 'account:write', status: 204,
    summary: 'Delete an OAuth client: its tokens stop at once; deleting again is not an error',
    params: [{ name: 'client_id', in: 'path', type: 'string', required: true, description: 'cln_ id' }], handler: remove,
  },
]);
